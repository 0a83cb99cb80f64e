import Domain
import EventStore
import Foundation
import Logging
import Projections

/// Savings: load, decide (`SavingsGoalDecider`), append; and the reads behind `/api/v1/savings`.
/// A goal's stream belongs to its owner; a member's or an invitee's change is appended there
/// too, with them as the event's actor. Who may do what is the member rule in `Domain`
/// (`SavingsGoal.authorize`), asked on every call, reads included, against the goal as it is now.
public struct SavingsService: AreaService {
    let basis: ServiceBasis
    let savings: SavingsReadModel
    let cache = SavingsGoalCache()

    public init(_ basis: ServiceBasis) {
        self.basis = basis
        savings = SavingsReadModel(client: basis.client, logger: basis.logger)
    }

    /// The caller's logical today, or the as-of date they asked for.
    public func asOf(_ userId: UUID, _ date: LocalDate?) async throws -> LocalDate {
        if let date { return date }
        return try await calendar(userId).today(at: clock.now())
    }

    /// Runs the command on the goal's stream; answers with the goal as the decision left it
    /// (nil when it was deleted, or when this was a replay and nothing was decided). `owner` is
    /// the goal's owner when the caller found it another way (an invitee, by their invitation).
    @discardableResult
    func execute(_ context: CommandContext, goal goalId: UUID, owner known: UUID? = nil, _ action: SavingsGoalCommand.Action) async throws
        -> SavingsGoal?
    {
        let actor = context.userId
        var owner = actor
        let calendar: UserCalendar
        if case .create = action {
            calendar = try await self.calendar(actor)
        } else if let known {
            owner = known
            calendar = try await self.calendar(actor)
        } else {
            // Anyone who is neither the owner nor a member learns nothing: 404.
            async let found = savings.owner(of: goalId, for: actor)
            calendar = try await self.calendar(actor)
            guard let found = try await found else { throw ResourceError.notFound }
            owner = found
        }
        let time = calendar.decisionTime(at: clock.now())
        let stream = StreamName(id: SavingsEvent.streamId(goalId), ownerId: owner, type: SavingsEvent.streamType)
        let command = SavingsGoalCommand(actor: actor, action)
        let decision = try await commands.decide(SavingsGoalDecider.self, stream: stream, command: command, context: context, time: time) {
            if case .create = action { return .init(state: nil, streamVersion: 0) }
            guard let goal = try await decisionGoal(owner: owner, goalId) else { return .init(state: nil, streamVersion: 0) }
            return .init(state: goal, streamVersion: goal.version)
        }
        // The goal as stored: the next command or overview finds it in the cache.
        let after = decision.state ?? nil
        if let goal = after {
            await cache.store([goal.id: .init(version: goal.version, plan: goal.plan, movements: goal.movements)])
        }
        return after
    }

    /// The goal for a decision: its row and members read now, its plan and movements from the
    /// cache when it holds them at that version (each command leaves its result there).
    func decisionGoal(owner: UUID, _ goalId: UUID) async throws -> SavingsGoal? {
        guard var (goal, _) = try await savings.goalRow(owner: owner, goalId) else { return nil }
        if let facts = await cache.facts([goal])[goalId] {
            goal.plan = facts.plan
            goal.movements = facts.movements
            return goal
        }
        let (plans, movements) = try await savings.details(of: [goal])
        goal.plan = SavingsSchedule(plans[goalId] ?? [])
        goal.movements = movements[goalId] ?? []
        await cache.store([goalId: .init(version: goal.version, plan: goal.plan, movements: goal.movements)])
        return goal
    }

    public func create(_ context: CommandContext, _ new: NewSavingsGoal) async throws -> SavingsGoalView {
        let goalId = context.newId("savings-goal")
        try await execute(context, goal: goalId, .create(id: goalId, new))
        return try await goal(context.userId, goalId, asOf: nil)
    }

    public func update(_ context: CommandContext, _ goalId: UUID, _ change: Checked<SavingsGoalChange>) async throws -> SavingsGoalView {
        try await execute(context, goal: goalId, .change(change))
        return try await goal(context.userId, goalId, asOf: nil)
    }

    public func delete(_ context: CommandContext, _ goalId: UUID) async throws {
        try await execute(context, goal: goalId, .delete)
    }

    public func setPlan(_ context: CommandContext, _ goalId: UUID, _ plan: Checked<NewSavingsPlan>) async throws -> SavingsGoalView {
        try await execute(context, goal: goalId, .setPlan(plan))
        return try await goal(context.userId, goalId, asOf: nil)
    }

    public func endPlan(_ context: CommandContext, _ goalId: UUID) async throws {
        try await execute(context, goal: goalId, .endPlan)
    }

    /// Invites the account with this address (as typed, trimmed). Whether the caller may invite
    /// comes first (a member gets 403, anyone else 404), then what the address is: the lookup is
    /// part of loading, and only the owner hears that no account has it (422 on `email`). Answers
    /// the invitation, and whether this call created it (false: one was already pending).
    public func invite(_ context: CommandContext, _ goalId: UUID, _ address: Checked<SavingsInvitee>) async throws
        -> (SavingsInvitationView, created: Bool)
    {
        let invitationId = context.newId("savings-invitation")
        let invitee = try await users.userId(email: Email.normalize(address.input.email))
        var goal = try await execute(context, goal: goalId, .invite(id: invitationId, address, invitee: invitee))
        if goal == nil { goal = try await load(context.userId, goalId).0.goal }  // a replay: read what the first attempt stored
        guard let invitation = goal?.invitations.last(where: { $0.invitee == invitee }) else { throw ResourceError.notFound }
        return (SavingsInvitationView(invitation, at: clock.now()), invitation.id == invitationId)
    }

    /// The goal's invitations not accepted (pending, declined, expired), for its owner only: the
    /// address each was sent to and its status, never who the invitee is.
    public func invitations(_ userId: UUID, _ goalId: UUID) async throws -> [SavingsInvitationView] {
        let goal = try await load(userId, goalId, for: .manage).0.goal
        let now = clock.now()
        return goal.invitations.map { SavingsInvitationView($0, at: now) }.filter { $0.status != .accepted }
    }

    public func withdrawInvitation(_ context: CommandContext, _ goalId: UUID, invitationId: UUID) async throws {
        try await execute(context, goal: goalId, .withdrawInvitation(id: invitationId))
    }

    /// The invitations addressed to the caller that are still pending, oldest first.
    public func receivedInvitations(_ userId: UUID) async throws -> [SavingsReceivedInvitation] {
        let now = clock.now()
        return try await savings.received(by: userId).filter { $0.invitation.status(at: now) == .pending }
    }

    /// Accepts an invitation addressed to the caller and answers the goal they now share.
    public func acceptInvitation(_ context: CommandContext, _ invitationId: UUID) async throws -> SavingsGoalView {
        guard let (owner, goalId) = try await savings.invitation(invitationId, for: context.userId) else { throw ResourceError.notFound }
        try await execute(context, goal: goalId, owner: owner, .acceptInvitation(id: invitationId))
        return try await goal(context.userId, goalId, asOf: nil)
    }

    public func declineInvitation(_ context: CommandContext, _ invitationId: UUID) async throws {
        guard let (owner, goalId) = try await savings.invitation(invitationId, for: context.userId) else { throw ResourceError.notFound }
        try await execute(context, goal: goalId, owner: owner, .declineInvitation(id: invitationId))
    }

    /// The owner removes a member, or a member leaves (their own id).
    public func removeMember(_ context: CommandContext, _ goalId: UUID, userId: UUID) async throws {
        try await execute(context, goal: goalId, .removeMember(userId: userId))
    }

    public func addMovement(_ context: CommandContext, _ goalId: UUID, _ movement: Checked<NewSavingsMovement>) async throws
        -> SavingsMovementView
    {
        let movementId = context.newId("savings-movement")
        var goal = try await execute(context, goal: goalId, .addMovement(id: movementId, movement))
        if goal == nil { goal = try await load(context.userId, goalId).0.goal }  // a replay: read what the first attempt stored
        guard let goal, let view = SavingsMovementView.all(of: goal).first(where: { $0.movement.id == movementId }) else {
            throw ResourceError.notFound
        }
        return view
    }

    public func deleteMovement(_ context: CommandContext, _ goalId: UUID, movementId: UUID) async throws {
        try await execute(context, goal: goalId, .deleteMovement(id: movementId))
    }

    // MARK: Queries

    /// The goal, when the member rule lets `userId` do `act` with it (404 or 403 otherwise).
    func load(_ userId: UUID, _ goalId: UUID, for act: SavingsGoal.Act = .read) async throws -> (SavingsGoalAccess, owner: UUID) {
        guard let owner = try await savings.owner(of: goalId, for: userId),
              let (goal, createdAt) = try await savings.goal(owner: owner, goalId) else { throw ResourceError.notFound }
        let role = try goal.authorize(userId, to: act)
        return (SavingsGoalAccess(goal: goal, role: role, createdAt: createdAt), owner)
    }

    public func goal(_ userId: UUID, _ goalId: UUID, asOf date: LocalDate?) async throws -> SavingsGoalView {
        let asOf = try await asOf(userId, date)
        return SavingsGoalView(try await load(userId, goalId).0, asOf: asOf)
    }

    public func goals(_ userId: UUID, asOf date: LocalDate?) async throws -> [SavingsGoalView] {
        async let rows = savings.goalRows(for: userId)
        let asOf = try await asOf(userId, date)
        return try await views(try await rows, asOf: asOf)
    }

    /// The goal, and its occurrences due from `from` (default: the plan's start) through `to`
    /// (default: the end of the twelfth month after the as-of month), with their statuses.
    public func occurrences(_ userId: UUID, _ goalId: UUID, from: LocalDate?, to: LocalDate?, asOf date: LocalDate?) async throws
        -> (SavingsGoalView, [SavingsOccurrence])
    {
        let asOf = try await asOf(userId, date)
        let view = SavingsGoalView(try await load(userId, goalId).0, asOf: asOf)
        let to = to ?? asOf.localMonth.adding(months: 12).lastDay
        return (view, view.progress.occurrences(from: from ?? SavingsSchedule.firstMonth.firstDay, through: to))
    }

    /// The movements newest first (by date, then entry), those after the as-of date left out.
    public func movements(_ userId: UUID, _ goalId: UUID, asOf date: LocalDate?) async throws -> [SavingsMovementView] {
        let goal = try await load(userId, goalId).0.goal
        return SavingsMovementView.all(of: goal).filter { view in date.map { view.movement.date <= $0 } ?? true }.reversed()
    }

    public func members(_ userId: UUID, _ goalId: UUID) async throws -> [SavingsMemberView] {
        let owner = try await load(userId, goalId).owner
        return try await savings.members(owner: owner, goalId)
    }

    public func overview(_ userId: UUID, asOf date: LocalDate?) async throws -> SavingsOverview {
        async let rows = savings.goalRows(for: userId)
        let asOf = try await asOf(userId, date)
        return SavingsOverview(goals: try await views(try await rows, asOf: asOf), asOf: asOf)
    }

    /// Every goal of these rows (what the user may see, read every time), as of a day: plans,
    /// movements and progress come from the cache while a goal's version has not moved.
    func views(_ rows: [SavingsGoalAccess], asOf: LocalDate) async throws -> [SavingsGoalView] {
        try await views(rows, asOf: Array(repeating: asOf, count: rows.count))
    }

    /// Every goal of many users (the reminder job's batch), each as of its user's day, with the
    /// plans and movements not in the cache read at once.
    public func goals(asOf days: [UUID: LocalDate]) async throws -> [UUID: [SavingsGoalView]] {
        let rows = try await savings.goalRows(for: Array(days.keys)).flatMap { user, goals in goals.map { (user, $0) } }
        let views = try await views(rows.map(\.1), asOf: rows.map { days[$0.0] ?? SavingsSchedule.firstMonth.firstDay })
        var byUser: [UUID: [SavingsGoalView]] = [:]
        for ((user, _), view) in zip(rows, views) { byUser[user, default: []].append(view) }
        return byUser
    }

    /// `asOf[i]` is the day `rows[i]` is seen as of.
    func views(_ rows: [SavingsGoalAccess], asOf days: [LocalDate]) async throws -> [SavingsGoalView] {
        var goals = rows
        var known = await cache.facts(goals.map(\.goal))
        // Once each: a shared goal is in a batch for its owner and for each member.
        var seen = Set<UUID>()
        let missing = goals.map(\.goal).filter { known[$0.id] == nil && seen.insert($0.id).inserted }
        if !missing.isEmpty {
            let (plans, movements) = try await savings.details(of: missing)
            var loaded: [UUID: SavingsGoalCache.Facts] = [:]
            for goal in missing {
                loaded[goal.id] = .init(version: goal.version, plan: SavingsSchedule(plans[goal.id] ?? []), movements: movements[goal.id] ?? [])
            }
            await cache.store(loaded)
            known.merge(loaded) { _, new in new }
        }
        var views: [SavingsGoalView] = []
        for index in goals.indices {
            let id = goals[index].goal.id
            goals[index].goal.plan = known[id]?.plan ?? SavingsSchedule([])
            goals[index].goal.movements = known[id]?.movements ?? []
            let asOf = days[index]
            let key = SavingsGoalCache.ProgressKey(goalId: id, version: goals[index].goal.version, asOf: asOf)
            if let progress = await cache.progress(key) {
                views.append(SavingsGoalView(goals[index], progress: progress))
            } else {
                let view = SavingsGoalView(goals[index], asOf: asOf)
                await cache.store(view.progress, for: key)
                views.append(view)
            }
        }
        return views
    }
}
