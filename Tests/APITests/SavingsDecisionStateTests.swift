@testable import API
@testable import Core
import Domain
import EventStore
import Foundation
import PostgresNIO
@testable import Projections
import Testing
import TestSupport

/// Savings decide on the goal's row in the read model with its plan and movements from a cache
/// (`SavingsService.decisionGoal`). Over random command sequences that state equals the fold of
/// the goal's own events at the same version, cached or not, and a rebuild of the read model in
/// the middle changes nothing (issue 25 §4).
@Suite struct SavingsDecisionStateTests {
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func theDecisionGoalIsTheFoldOfTheStream(seed: UInt64) async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2026-03-20T09:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "goal-\(seed)@example.com"))
            let savings = harness.services.savings
            var random = CommandSequenceRandom(seed: seed)
            var goals: [UUID] = []
            var movements: [UUID: [UUID]] = [:]
            var compared = 0
            var moved = 0

            func movedCount() { moved += 1 }

            func check(_ step: Int) async throws {
                for id in goals {
                    let decided = try await savings.decisionGoal(owner: owner, id)
                    let stream = StreamName(id: SavingsEvent.streamId(id), ownerId: owner, type: SavingsEvent.streamType)
                    let folded = try await savings.commands.folded(SavingsGoalDecider.self, stream)
                    guard let decided else {
                        #expect(folded.state == nil, "seed \(seed), step \(step): a goal the read model lost")
                        continue
                    }
                    compared += 1
                    #expect(folded.streamVersion == decided.version, "seed \(seed), step \(step): versions")
                    #expect(folded.state == decided, "seed \(seed), step \(step): the decision's goal is not the fold of its stream")
                }
            }

            for step in 0..<30 {
                let context = CommandContext(userId: owner)
                let pick = goals.count < 2 ? 0 : random.next(6)
                do {
                    switch pick {
                    case 0:
                        let view = try await savings.create(context, try NewSavingsGoal.validated(from: SavingsGoalDraft(
                            name: "Goal \(step)", currency: "EUR", targetAmount: random.next(2) == 0 ? nil : "1000.00")).get())
                        goals.append(view.goal.id)
                    case 1:
                        _ = try await savings.setPlan(context, goals[random.next(goals.count)],
                                                      try Checked(reading: SavingsPlanDraft(amount: "\(50 + random.next(100)).00", anchorDay: .day(1 + random.next(28)),
                                                                                            startMonth: "2026-0\(1 + random.next(3))")))
                    case 2, 3:
                        let goal = goals[random.next(goals.count)]
                        let kind = pick == 2 ? "deposit" : "withdrawal"
                        let made = try await savings.addMovement(context, goal, try Checked(reading: SavingsMovementDraft(
                            kind: kind, amount: "\(1 + random.next(40)).50", date: "2026-03-\(10 + random.next(10))")))
                        movements[goal, default: []].append(made.movement.id)
                        movedCount()
                    case 4:
                        _ = try await savings.update(context, goals[random.next(goals.count)], try Checked(reading: SavingsGoalChangeDraft(name: "Renamed \(step)")))
                    default:
                        let goal = goals[random.next(goals.count)]
                        if let made = movements[goal], !made.isEmpty {
                            let movement = made[random.next(made.count)]
                            try await savings.deleteMovement(context, goal, movementId: movement)
                        } else {
                            try await savings.endPlan(context, goal)
                        }
                    }
                } catch is any ProblemDescribing {
                    // A command the rules refuse (a withdrawal beyond the balance) is part of a random sequence.
                }
                try await check(step)
                if step == 15 {
                    try await harness.rebuild(SavingsProjector())
                    try await check(step)
                }
            }
            #expect(goals.count >= 2 && moved >= 3 && compared >= 30, "the sequence made goals and movements and compared them (\(goals.count), \(moved), \(compared))")
        }
    }
}
