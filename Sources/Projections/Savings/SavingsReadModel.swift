import Domain
import Foundation
import Logging
import EventStore
import PostgresNIO

/// A goal someone may see, with their role in it.
public struct SavingsGoalAccess: Sendable {
    public var goal: SavingsGoal
    public var role: SavingsGoal.Role
    public var createdAt: Date

    public init(goal: SavingsGoal, role: SavingsGoal.Role, createdAt: Date) {
        self.goal = goal
        self.role = role
        self.createdAt = createdAt
    }
}

/// A member of a goal as `GET /savings/goals/{id}/members` lists them.
public struct SavingsMemberView: Sendable {
    public var userId: UUID
    public var email: String
    public var name: String
    public var role: SavingsGoal.Role
    public var addedAt: Date
}

/// An invitation as its invitee sees it: only what they need to decide.
public struct SavingsReceivedInvitation: Sendable {
    public var invitation: SavingsInvitation
    public var goalName: String
    public var ownerName: String
    public var ownerEmail: String
}

/// The queries over what `SavingsProjector` writes. Queries of a goal lead with its owner's id;
/// a member reaches a goal through `rm_savings_members`, keyed by the member.
public struct SavingsReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The owner of `goalId` (whose stream holds it) when `userId` owns it or is a member; nil
    /// otherwise. This only finds the goal: what the caller may do with it is the member rule's
    /// (`SavingsGoal.authorize`), which every read and command asks. An invitee finds the goal
    /// through their invitation (`invitation(_:for:)`), and nothing else of it.
    public func owner(of goalId: UUID, for userId: UUID) async throws -> UUID? {
        for try await owner in try await client.rows("""
            SELECT owner_id FROM rm_savings_goals WHERE owner_id = \(userId) AND goal_id = \(goalId)
            UNION ALL
            SELECT owner_id FROM rm_savings_members WHERE user_id = \(userId) AND goal_id = \(goalId)
            """, logger: logger).decode(UUID.self) {
            return owner
        }
        return nil
    }

    /// The goal's row, members and invitations, without its plan and movements: one query, whose
    /// version says whether a cached plan and movements are current.
    public func goalRow(owner: UUID, _ goalId: UUID) async throws -> (goal: SavingsGoal, createdAt: Date)? {
        for try await r in try await client.rows("""
            SELECT goal_id, owner_id, name, emoji, currency, target_amount, target_date::text, version, created_at,
              ARRAY(SELECT user_id FROM rm_savings_members m WHERE m.owner_id = g.owner_id AND m.goal_id = g.goal_id),
              (SELECT COALESCE(json_agg(json_build_object(
                  'id', i.invitation_id, 'invitee', i.user_id, 'email', i.email,
                  'invited', EXTRACT(EPOCH FROM i.invited_at)::bigint, 'expires', EXTRACT(EPOCH FROM i.expires_at)::bigint,
                  'answer', i.answer, 'answered', EXTRACT(EPOCH FROM i.answered_at)::bigint) ORDER BY i.invited_at, i.invitation_id), '[]')::text
               FROM rm_savings_invitations i WHERE i.owner_id = g.owner_id AND i.goal_id = g.goal_id)
            FROM rm_savings_goals g WHERE owner_id = \(owner) AND goal_id = \(goalId)
            """, logger: logger).decode((UUID, UUID, String, String?, String, Int64?, String?, Int64, Date, [UUID], String).self) {
            var goal = try Self.goal((r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8))
            goal.members = Set(r.9)
            goal.invitations = try Self.invitations(r.10)
            return (goal, r.8)
        }
        return nil
    }

    /// Invitations as `goalRow` reads them (instants are whole seconds: the events keep them so).
    static func invitations(_ json: String) throws -> [SavingsInvitation] {
        struct Row: Decodable {
            var id: UUID
            var invitee: UUID
            var email: String
            var invited: Int64
            var expires: Int64
            var answer: String?
            var answered: Int64?
        }
        let rows: [Row]
        do { rows = try JSONDecoder().decode([Row].self, from: Data(json.utf8)) } catch { throw CorruptData("savings invitations", json) }
        return try rows.map { row in
            var answer: SavingsInvitation.Answer?
            if let raw = row.answer {
                guard let known = SavingsInvitation.Answer(rawValue: raw) else { throw CorruptData("savings invitation answer", raw) }
                answer = known
            }
            func instant(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
            return SavingsInvitation(id: row.id, invitee: row.invitee, email: row.email, invitedAt: instant(row.invited), expiresAt: instant(row.expires),
                                     answer: answer, answeredAt: row.answered.map(instant))
        }
    }

    /// The goal an invitation addressed to `invitee` is for, and its owner; nil for an
    /// invitation that is withdrawn, replaced, or someone else's.
    public func invitation(_ invitationId: UUID, for invitee: UUID) async throws -> (owner: UUID, goalId: UUID)? {
        for try await (owner, goal) in try await client.rows("""
            SELECT owner_id, goal_id FROM rm_savings_invitations WHERE user_id = \(invitee) AND invitation_id = \(invitationId)
            """, logger: logger).decode((UUID, UUID).self) {
            return (owner, goal)
        }
        return nil
    }

    /// The open (unanswered) invitations addressed to `invitee`, oldest first, with what they need
    /// to decide: the goal's name and who invites them. Whether each is still pending at a given
    /// instant is `SavingsInvitation.status`'s to say.
    public func received(by invitee: UUID) async throws -> [SavingsReceivedInvitation] {
        var received: [SavingsReceivedInvitation] = []
        for try await r in try await client.rows("""
            SELECT i.invitation_id, i.user_id, i.email, i.invited_at, i.expires_at, g.name, u.name, u.email
            FROM rm_savings_invitations i
            JOIN rm_savings_goals g ON g.owner_id = i.owner_id AND g.goal_id = i.goal_id
            JOIN rm_users u ON u.user_id = i.owner_id
            WHERE i.user_id = \(invitee) AND i.answer IS NULL
            ORDER BY i.invited_at, i.invitation_id
            """, logger: logger).decode((UUID, UUID, String, Date, Date, String, String, String).self) {
            received.append(SavingsReceivedInvitation(
                invitation: SavingsInvitation(id: r.0, invitee: r.1, email: r.2, invitedAt: r.3, expiresAt: r.4),
                goalName: r.5, ownerName: r.6, ownerEmail: r.7))
        }
        return received
    }

    /// The goal whole, as `SavingsGoalDecider` sees it. The version is read first, so the rows
    /// read after it are at least that recent: an append at that version succeeds only when
    /// nothing changed in between.
    public func goal(owner: UUID, _ goalId: UUID) async throws -> (goal: SavingsGoal, createdAt: Date)? {
        guard let row = try await goalRow(owner: owner, goalId) else { return nil }
        var goal = row.goal
        let (plans, movements) = try await details(of: [goal])
        goal.plan = SavingsSchedule(plans[goalId] ?? [])
        goal.movements = movements[goalId] ?? []
        return (goal, row.createdAt)
    }

    /// Every goal `userId` owns or shares, with its plan and movements (members left out), in
    /// the order they were created: one query per table.
    public func goals(for userId: UUID) async throws -> [SavingsGoalAccess] {
        var goals = try await goalRows(for: userId)
        let (plans, movements) = try await details(of: goals.map(\.goal))
        for index in goals.indices {
            let id = goals[index].goal.id
            goals[index].goal.plan = SavingsSchedule(plans[id] ?? [])
            goals[index].goal.movements = movements[id] ?? []
        }
        return goals
    }

    /// Every goal `userId` owns or shares, without its plan and movements (each row carries its
    /// stream's version, so a cache can tell whether what it holds is current).
    public func goalRows(for userId: UUID) async throws -> [SavingsGoalAccess] {
        var goals: [SavingsGoalAccess] = []
        for try await r in try await client.rows("""
            SELECT goal_id, owner_id, name, emoji, currency, target_amount, target_date::text, version, created_at
            FROM rm_savings_goals WHERE owner_id = \(userId)
            UNION ALL
            SELECT g.goal_id, g.owner_id, g.name, g.emoji, g.currency, g.target_amount, g.target_date::text, g.version, g.created_at
            FROM rm_savings_members m JOIN rm_savings_goals g ON g.owner_id = m.owner_id AND g.goal_id = m.goal_id
            WHERE m.user_id = \(userId)
            ORDER BY created_at, goal_id
            """, logger: logger).decode(GoalRow.self) {
            // Only goals the user owns or is a member of: the member rule names the role.
            guard let role = SavingsGoal.role(of: userId, owner: r.1, isMember: true) else { continue }
            goals.append(SavingsGoalAccess(goal: try Self.goal(r), role: role, createdAt: r.8))
        }
        return goals
    }

    /// The same for many users at once (the reminder job's batch), by user.
    public func goalRows(for users: [UUID]) async throws -> [UUID: [SavingsGoalAccess]] {
        var goals: [UUID: [SavingsGoalAccess]] = [:]
        for try await r in try await client.rows("""
            SELECT g.owner_id AS user_id, g.goal_id, g.owner_id, g.name, g.emoji, g.currency, g.target_amount, g.target_date::text, g.version, g.created_at
            FROM rm_savings_goals g WHERE g.owner_id = ANY(\(users))
            UNION ALL
            SELECT m.user_id, g.goal_id, g.owner_id, g.name, g.emoji, g.currency, g.target_amount, g.target_date::text, g.version, g.created_at
            FROM rm_savings_members m JOIN rm_savings_goals g ON g.owner_id = m.owner_id AND g.goal_id = m.goal_id
            WHERE m.user_id = ANY(\(users))
            ORDER BY user_id, created_at, goal_id
            """, logger: logger).decode((UUID, UUID, UUID, String, String?, String, Int64?, String?, Int64, Date).self) {
            let row: GoalRow = (r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9)
            guard let role = SavingsGoal.role(of: r.0, owner: r.2, isMember: true) else { continue }
            goals[r.0, default: []].append(SavingsGoalAccess(goal: try Self.goal(row), role: role, createdAt: r.9))
        }
        return goals
    }

    /// The plans and movements of these goals, one query per table, each led by the goal's owner.
    public func details(of goals: [SavingsGoal]) async throws -> (plans: [UUID: [SavingsPlanChange]], movements: [UUID: [SavingsGoal.Movement]]) {
        guard !goals.isEmpty else { return ([:], [:]) }
        let owners = goals.map(\.ownerId), ids = goals.map(\.id)
        // Both after the caller's version read, and independent of each other: sent together.
        async let plans = planRows(client.rows("""
            SELECT p.goal_id, p.seq, p.kind, p.amount, p.anchor_day, p.every_months, p.start_month::text, p.end_month::text, p.ended_after::text
            FROM unnest(\(owners)::uuid[], \(ids)::uuid[]) AS g(owner_id, goal_id)
            JOIN rm_savings_plans p ON p.owner_id = g.owner_id AND p.goal_id = g.goal_id
            ORDER BY p.goal_id, p.seq
            """, logger: logger))
        async let movements = movementRows(client.rows("""
            SELECT v.goal_id, v.movement_id, v.kind, v.amount, v.date - DATE '1970-01-01', v.occurrence - DATE '1970-01-01', v.note, v.actor_id, v.seq
            FROM unnest(\(owners)::uuid[], \(ids)::uuid[]) AS g(owner_id, goal_id)
            JOIN rm_savings_movements v ON v.owner_id = g.owner_id AND v.goal_id = g.goal_id
            ORDER BY v.goal_id, v.seq
            """, logger: logger))
        return try await (plans, movements)
    }

    /// The owner first, then the members in the order they were added.
    public func members(owner: UUID, _ goalId: UUID) async throws -> [SavingsMemberView] {
        var members: [SavingsMemberView] = []
        for try await r in try await client.rows("""
            SELECT u.user_id, u.email, u.name, 'owner', g.created_at
            FROM rm_savings_goals g JOIN rm_users u ON u.user_id = g.owner_id
            WHERE g.owner_id = \(owner) AND g.goal_id = \(goalId)
            UNION ALL
            SELECT * FROM (SELECT u.user_id, u.email, u.name, 'member', m.added_at
              FROM rm_savings_members m JOIN rm_users u ON u.user_id = m.user_id
              WHERE m.owner_id = \(owner) AND m.goal_id = \(goalId) ORDER BY m.added_at, m.user_id) AS added
            """, logger: logger).decode((UUID, String, String, String, Date).self) {
            members.append(SavingsMemberView(userId: r.0, email: r.1, name: r.2, role: r.3 == "owner" ? .owner : .member, addedAt: r.4))
        }
        return members
    }

    // MARK: Rows

    typealias GoalRow = (UUID, UUID, String, String?, String, Int64?, String?, Int64, Date)

    static func goal(_ r: GoalRow) throws -> SavingsGoal {
        guard let currency = Currency(r.4) else { throw CorruptData("savings goal currency", r.4) }
        return SavingsGoal(id: r.0, ownerId: r.1, name: r.2, emoji: r.3, currency: currency, targetAmount: r.5,
                           targetDate: try date(r.6), version: r.7)
    }

    func planRows(_ rows: QueryRows) async throws -> [UUID: [SavingsPlanChange]] {
        var plans: [UUID: [SavingsPlanChange]] = [:]
        for try await r in rows.decode((UUID, Int64, String, Int64?, String?, Int16?, String?, String?, String?).self) {
            if r.2 == "ended" {
                guard let after = try Self.date(r.8) else { throw CorruptData("savings plan end", "\(r.0)") }
                plans[r.0, default: []].append(.ended(after: after))
                continue
            }
            guard let amount = r.3, let anchor = r.4.flatMap(SavingsAnchorDay.init), let every = r.5, let start = try Self.date(r.6) else {
                throw CorruptData("savings plan", "\(r.0)/\(r.1)")
            }
            let plan = SavingsPlan(amount: amount, anchorDay: anchor, everyMonths: Int(every), startMonth: start.localMonth,
                                   endMonth: try Self.date(r.7)?.localMonth)
            plans[r.0, default: []].append(.set(plan))
        }
        return plans
    }

    /// Movements with their dates as days since 1970-01-01: integers, read without parsing text
    /// (a goal's years of deposits are read on every overview that is not cached).
    func movementRows(_ rows: QueryRows) async throws -> [UUID: [SavingsGoal.Movement]] {
        var movements: [UUID: [SavingsGoal.Movement]] = [:]
        for try await r in rows.decode((UUID, UUID, String, Int64, Int32, Int32?, String?, UUID, Int64).self) {
            guard let kind = SavingsGoal.Movement.Kind(rawValue: r.2) else { throw CorruptData("savings movement", "\(r.1)") }
            movements[r.0, default: []].append(.init(
                id: r.1, kind: kind, amount: r.3, date: LocalDate(daysSinceEpoch: Int(r.4)), occurrence: r.5.map { LocalDate(daysSinceEpoch: Int($0)) },
                note: r.6, actorId: r.7, order: r.8))
        }
        return movements
    }

    static func date(_ raw: String?) throws -> LocalDate? {
        try raw.map { raw in
            guard let date = LocalDate(raw) else { throw CorruptData("savings date", raw) }
            return date
        }
    }
}
