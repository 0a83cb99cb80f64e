import Core
import Domain
import Foundation
import Hummingbird
import Projections

/// Savings: goals with recurring plans, deposits and withdrawals, every overdue payment, and
/// goals shared with other users (`/api/v1/savings*`).
public struct SavingsArea: Area {
    public static let name = "Savings"
    public static let projectors: [any Projector] = [SavingsProjector()]
    public static let openAPIPart = "savings"
    let savings: SavingsService

    public init(_ context: AreaContext) {
        savings = context.services.savings
    }

    /// `?name=YYYY-MM-DD`, within the dates savings accepts anywhere.
    static func date(_ request: Request, _ name: String) throws -> LocalDate? {
        guard let date = try request.queryDate(name) else { return nil }
        let first = SavingsSchedule.firstMonth.firstDay, last = SavingsSchedule.lastMonth.lastDay
        guard date >= first, date <= last else { throw Problem.invalid([.init(field: name, message: "must be from \(first) to \(last)")]) }
        return date
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        let savings = self.savings
        let group = api.group("savings", context: UserRequestContext.self)
        group.get("overview") { request, context in
            SavingsOverviewDTO(try await savings.overview(context.userId, asOf: try Self.date(request, "date")))
        }
        let goals = group.group("goals")
        registerGoals(goals)
        registerMovements(goals)
        registerSharing(goals, invitations: group.group("invitations"))
    }

    /// `/savings/goals`: a goal, its plan and its occurrences.
    func registerGoals(_ goals: RouterGroup<UserRequestContext>) {
        let savings = self.savings
        goals.post { request, context in
            let view = try await savings.create(context.command(), try await request.input(NewSavingsGoal.self, context: context))
            return EditedResponse(status: .created, headers: [.eTag: ETag.header(view.goal.version)], response: SavingsGoalDTO(view))
        }
        goals.get { request, context in
            let limit = try Cursor.limit(request)
            let after = try Cursor.decode(SavingsGoalCursor.self, request.uri.queryParameters.get("cursor").map { String($0) })
            let views = try await savings.goals(context.userId, asOf: try Self.date(request, "date")).filter { view in
                guard let after else { return true }
                return (Self.micros(view.createdAt), view.goal.id.uuidString) > (after.createdMicros, after.id.uuidString)
            }
            let page = Array(views.prefix(limit))
            let next = views.count > limit ? page.last.flatMap { Cursor.encode(SavingsGoalCursor(createdMicros: Self.micros($0.createdAt), id: $0.goal.id)) } : nil
            return Page(items: page.map(SavingsGoalDTO.init), nextCursor: next)
        }
        goals.get("{id}") { request, context in
            let view = try await savings.goal(context.userId, try context.resourceId(), asOf: try Self.date(request, "date"))
            return EditedResponse(headers: [.eTag: ETag.header(view.goal.version)], response: SavingsGoalDTO(view))
        }
        goals.patch("{id}") { request, context in
            let change = try await request.checked(SavingsGoalChange.self, context: context)
            let view = try await savings.update(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), change)
            return EditedResponse(headers: [.eTag: ETag.header(view.goal.version)], response: SavingsGoalDTO(view))
        }
        goals.delete("{id}") { _, context in
            try await savings.delete(context.command(), try context.resourceId())
            return Response(status: .noContent)
        }
        goals.put("{id}/plan") { request, context in
            let plan = try await request.checked(NewSavingsPlan.self, context: context)
            let view = try await savings.setPlan(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), plan)
            return EditedResponse(headers: [.eTag: ETag.header(view.goal.version)], response: SavingsGoalDTO(view))
        }
        goals.delete("{id}/plan") { _, context in
            try await savings.endPlan(context.command(), try context.resourceId())
            return Response(status: .noContent)
        }
        goals.get("{id}/occurrences") { request, context in
            let from = try Self.date(request, "from"), to = try Self.date(request, "to")
            if let from, let to, from > to { throw Problem.invalid([.init(field: "to", message: "must not be before from")]) }
            let (view, occurrences) = try await savings.occurrences(context.userId, try context.resourceId(), from: from, to: to,
                                                                    asOf: try Self.date(request, "date"))
            return Items(items: occurrences.map { SavingsOccurrenceDTO($0, goal: view.goal) })
        }
    }

    /// `/savings/goals/{id}/transactions`: deposits and withdrawals.
    func registerMovements(_ goals: RouterGroup<UserRequestContext>) {
        let savings = self.savings
        goals.post("{id}/transactions") { request, context in
            let movement = try await request.checked(NewSavingsMovement.self, context: context)
            let view = try await savings.addMovement(context.command(), try context.resourceId(), movement)
            return EditedResponse(status: .created, response: SavingsMovementDTO(view))
        }
        goals.get("{id}/transactions") { request, context in
            let limit = try Cursor.limit(request)
            let after = try Cursor.decode(SavingsMovementCursor.self, request.uri.queryParameters.get("cursor").map { String($0) })
            let views = try await savings.movements(context.userId, try context.resourceId(), asOf: try Self.date(request, "date")).filter { view in
                guard let after else { return true }
                return (view.movement.date.description, view.movement.order) < (after.date, after.order)
            }
            let page = Array(views.prefix(limit))
            let next = views.count > limit
                ? page.last.flatMap { Cursor.encode(SavingsMovementCursor(date: $0.movement.date.description, order: $0.movement.order)) } : nil
            return Page(items: page.map(SavingsMovementDTO.init), nextCursor: next)
        }
        goals.delete("{id}/transactions/{tid}") { _, context in
            try await savings.deleteMovement(context.command(), try context.resourceId(), movementId: try context.resourceId("tid"))
            return Response(status: .noContent)
        }
    }

    /// Members and invitations: the owner's side under the goal, the invitee's under `/savings/invitations`.
    func registerSharing(_ goals: RouterGroup<UserRequestContext>, invitations: RouterGroup<UserRequestContext>) {
        let savings = self.savings
        // Sharing needs consent: the owner invites by email, the invitee accepts or declines.
        goals.post("{id}/members") { request, context in
            let invitee = try await request.checked(SavingsInvitee.self, context: context)
            let (invitation, created) = try await savings.invite(context.command(), try context.resourceId(), invitee)
            return EditedResponse(status: created ? .created : .ok, response: SavingsInvitationDTO(invitation))
        }
        goals.get("{id}/members") { _, context in
            Items(items: try await savings.members(context.userId, try context.resourceId()).map(SavingsMemberDTO.init))
        }
        goals.delete("{id}/members/{user_id}") { _, context in
            try await savings.removeMember(context.command(), try context.resourceId(), userId: try context.resourceId("user_id"))
            return Response(status: .noContent)
        }
        goals.get("{id}/invitations") { _, context in
            Items(items: try await savings.invitations(context.userId, try context.resourceId()).map(SavingsInvitationDTO.init))
        }
        goals.delete("{id}/invitations/{invitation_id}") { _, context in
            try await savings.withdrawInvitation(context.command(), try context.resourceId(), invitationId: try context.resourceId("invitation_id"))
            return Response(status: .noContent)
        }
        invitations.get { request, context in
            let limit = try Cursor.limit(request)
            let after = try Cursor.decode(SavingsInvitationCursor.self, request.uri.queryParameters.get("cursor").map { String($0) })
            let received = try await savings.receivedInvitations(context.userId).filter { received in
                guard let after else { return true }
                return (Self.seconds(received.invitation.invitedAt), received.invitation.id.uuidString) > (after.invitedAt, after.id.uuidString)
            }
            let page = Array(received.prefix(limit))
            let next = received.count > limit
                ? page.last.flatMap { Cursor.encode(SavingsInvitationCursor(invitedAt: Self.seconds($0.invitation.invitedAt), id: $0.invitation.id)) } : nil
            return Page(items: page.map(SavingsReceivedInvitationDTO.init), nextCursor: next)
        }
        invitations.post("{id}/accept") { _, context in
            let view = try await savings.acceptInvitation(context.command(), try context.resourceId())
            return EditedResponse(headers: [.eTag: ETag.header(view.goal.version)], response: SavingsGoalDTO(view))
        }
        invitations.post("{id}/decline") { _, context in
            try await savings.declineInvitation(context.command(), try context.resourceId())
            return Response(status: .noContent)
        }
    }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
    /// Invitations' instants are whole seconds.
    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
