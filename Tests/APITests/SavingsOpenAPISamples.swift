// @testable: the DTOs and the views they are made from are internal.
@testable import API
@testable import Core
@testable import Domain
import Foundation
@testable import Projections
import Testing

extension OpenAPITests {
    /// A sample of every savings response DTO, full and without optionals.
    static func savingsSamples() throws -> [Sample] {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let currency = try #require(Currency("EUR"))
        let plan = SavingsPlan(amount: 10_000, anchorDay: .day(31), everyMonths: 1, startMonth: try #require(LocalMonth("2026-01")),
                               endMonth: LocalMonth("2026-12"))
        func goal(full: Bool) throws -> SavingsGoalView {
            var goal = SavingsGoal(id: UUID(), ownerId: UUID(), name: "Trip", emoji: full ? "✈️" : nil, currency: currency,
                                   targetAmount: full ? 120_000 : nil, targetDate: full ? LocalDate("2026-12-31") : nil,
                                   plan: SavingsSchedule(full ? [.set(plan), .set(SavingsPlan(amount: 5_000, anchorDay: .last, everyMonths: 2,
                                                                                           startMonth: try #require(LocalMonth("2026-06")), endMonth: LocalMonth("2027-06")))] : []))
            goal.movements = [.init(id: UUID(), kind: .deposit, amount: 15_000, date: try #require(LocalDate("2026-01-31")),
                                    occurrence: full ? LocalDate("2026-01-31") : nil, note: full ? "gift" : nil, actorId: UUID(), order: 2)]
            return SavingsGoalView(SavingsGoalAccess(goal: goal, role: full ? .owner : .member, createdAt: now),
                                   asOf: try #require(LocalDate("2026-03-05")))
        }
        let full = try goal(full: true), bare = try goal(full: false)
        let movements = SavingsMovementView.all(of: full.goal)
        let overview = SavingsOverview(goals: [full, bare], asOf: try #require(LocalDate("2026-03-05")))
        let member = SavingsMemberView(userId: UUID(), email: "bo@example.com", name: "Bo", role: .member, addedAt: now)
        let invitation = SavingsInvitation(id: UUID(), invitee: UUID(), email: "Bo@example.com", invitedAt: now,
                                           expiresAt: now.addingTimeInterval(SavingsInvitation.lifetime))
        let invitationView = SavingsInvitationView(invitation, at: now)
        let received = SavingsReceivedInvitation(invitation: invitation, goalName: "Flat", ownerName: "Ana", ownerEmail: "ana@example.com")
        let occurrences = full.progress.occurrences(from: try #require(LocalDate("2026-01-01")), through: try #require(LocalDate("2026-12-31")))
        return [
            try sample("SavingsGoal", "GET /api/v1/savings/goals/{id}", "200", full: true, SavingsGoalDTO(full)),
            try sample("SavingsGoal (no optionals)", "GET /api/v1/savings/goals/{id}", "200", full: false, SavingsGoalDTO(bare)),
            try sample("SavingsGoal page", "GET /api/v1/savings/goals", "200", full: true, Page(items: [SavingsGoalDTO(full)], nextCursor: "next")),
            try sample("SavingsGoal created", "POST /api/v1/savings/goals", "201", full: false, SavingsGoalDTO(bare)),
            try sample("SavingsGoal plan", "PUT /api/v1/savings/goals/{id}/plan", "200", full: true, SavingsGoalDTO(full)),
            try sample("SavingsMovement", "POST /api/v1/savings/goals/{id}/transactions", "201", full: true, SavingsMovementDTO(try #require(movements.first))),
            try sample("SavingsMovement page", "GET /api/v1/savings/goals/{id}/transactions", "200", full: false,
                       Page(items: movements.map(SavingsMovementDTO.init), nextCursor: nil)),
            try sample("SavingsOccurrences", "GET /api/v1/savings/goals/{id}/occurrences", "200", full: true,
                       Items(items: occurrences.map { SavingsOccurrenceDTO($0, goal: full.goal) })),
            try sample("SavingsInvitation", "POST /api/v1/savings/goals/{id}/members", "201", full: true, SavingsInvitationDTO(invitationView)),
            try sample("SavingsInvitation pending", "POST /api/v1/savings/goals/{id}/members", "200", full: true, SavingsInvitationDTO(invitationView)),
            try sample("SavingsInvitations", "GET /api/v1/savings/goals/{id}/invitations", "200", full: true, Items(items: [SavingsInvitationDTO(invitationView)])),
            try sample("SavingsReceivedInvitation page", "GET /api/v1/savings/invitations", "200", full: true,
                       Page(items: [SavingsReceivedInvitationDTO(received)], nextCursor: "next")),
            try sample("SavingsGoal accepted", "POST /api/v1/savings/invitations/{id}/accept", "200", full: false, SavingsGoalDTO(bare)),
            try sample("SavingsMembers", "GET /api/v1/savings/goals/{id}/members", "200", full: true, Items(items: [SavingsMemberDTO(member)])),
            try sample("SavingsOverview", "GET /api/v1/savings/overview", "200", full: true, SavingsOverviewDTO(overview)),
        ]
    }
}
