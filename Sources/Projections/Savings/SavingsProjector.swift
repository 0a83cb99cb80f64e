import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model of savings goals, their plan changes, members, invitations and movements.
public struct SavingsProjector: Projector {
    public let name = "savings"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_savings_goals", "rm_savings_plans", "rm_savings_members", "rm_savings_invitations", "rm_savings_movements"]
    public let eventTypes: [String]? = SavingsEvent.types

    public init() {}

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // Over 60 lines: one case per event type, each its own statements: the table reads best whole.
        for event in events {
            let owner = event.ownerId
            switch event.type {
            case SavingsEvent.GoalCreated.type:
                let g = try decode(SavingsEvent.GoalCreated.self, event)
                try await connection.run("""
                    INSERT INTO rm_savings_goals (goal_id, owner_id, name, emoji, currency, target_amount, target_date, version, created_at)
                    VALUES (\(g.goalId), \(owner), \(g.name), \(g.emoji), \(g.currency.code), \(g.targetAmount),
                            \(g.targetDate?.description)::date, \(event.streamVersion), \(event.recordedAt))
                    """, logger: logger)
                continue
            case SavingsEvent.GoalChanged.type:
                let g = try decode(SavingsEvent.GoalChanged.self, event)
                try await connection.run("""
                    UPDATE rm_savings_goals SET name = \(g.name), emoji = \(g.emoji), target_amount = \(g.targetAmount),
                      target_date = \(g.targetDate?.description)::date
                    WHERE owner_id = \(owner) AND goal_id = \(g.goalId)
                    """, logger: logger)
            case SavingsEvent.GoalDeleted.type:
                let g = try decode(SavingsEvent.GoalDeleted.self, event)
                try await connection.run("DELETE FROM rm_savings_movements WHERE owner_id = \(owner) AND goal_id = \(g.goalId)", logger: logger)
                try await connection.run("DELETE FROM rm_savings_members WHERE owner_id = \(owner) AND goal_id = \(g.goalId)", logger: logger)
                try await connection.run("DELETE FROM rm_savings_invitations WHERE owner_id = \(owner) AND goal_id = \(g.goalId)", logger: logger)
                try await connection.run("DELETE FROM rm_savings_plans WHERE owner_id = \(owner) AND goal_id = \(g.goalId)", logger: logger)
                try await connection.run("DELETE FROM rm_savings_goals WHERE owner_id = \(owner) AND goal_id = \(g.goalId)", logger: logger)
                continue
            case SavingsEvent.PlanSet.type:
                let p = try decode(SavingsEvent.PlanSet.self, event)
                let plan = p.plan
                try await connection.run("""
                    INSERT INTO rm_savings_plans (owner_id, goal_id, seq, kind, amount, anchor_day, every_months, start_month, end_month)
                    VALUES (\(owner), \(p.goalId), \(event.streamVersion), 'set', \(plan.amount), \(plan.anchorDay.description),
                            \(Int16(plan.everyMonths)), \(plan.startMonth.firstDay.description)::date, \(plan.endMonth?.firstDay.description)::date)
                    """, logger: logger)
            case SavingsEvent.PlanEnded.type:
                let p = try decode(SavingsEvent.PlanEnded.self, event)
                try await connection.run("""
                    INSERT INTO rm_savings_plans (owner_id, goal_id, seq, kind, ended_after)
                    VALUES (\(owner), \(p.goalId), \(event.streamVersion), 'ended', \(p.after.description)::date)
                    """, logger: logger)
            case SavingsEvent.MemberAdded.type:
                let m = try decode(SavingsEvent.MemberAdded.self, event)
                try await connection.run("""
                    INSERT INTO rm_savings_members (owner_id, goal_id, user_id, added_at) VALUES (\(owner), \(m.goalId), \(m.userId), \(event.recordedAt))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            case SavingsEvent.MemberInvited.type:
                let i = try decode(SavingsEvent.MemberInvited.self, event)
                // A new invitation replaces the invitee's earlier one (declined or expired).
                try await connection.run("""
                    WITH earlier AS (
                      DELETE FROM rm_savings_invitations WHERE owner_id = \(owner) AND goal_id = \(i.goalId) AND user_id = \(i.userId))
                    INSERT INTO rm_savings_invitations (invitation_id, owner_id, goal_id, user_id, email, invited_at, expires_at)
                    VALUES (\(i.invitationId), \(owner), \(i.goalId), \(i.userId), \(i.email), \(i.invitedAt), \(i.expiresAt))
                    """, logger: logger)
            case SavingsEvent.InvitationAccepted.type:
                let a = try decode(SavingsEvent.InvitationAccepted.self, event)
                try await connection.run("""
                    UPDATE rm_savings_invitations SET answer = 'accepted', answered_at = \(a.at)
                    WHERE owner_id = \(owner) AND goal_id = \(a.goalId) AND invitation_id = \(a.invitationId)
                    """, logger: logger)
                try await connection.run("""
                    INSERT INTO rm_savings_members (owner_id, goal_id, user_id, added_at) VALUES (\(owner), \(a.goalId), \(a.userId), \(a.at))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            case SavingsEvent.InvitationDeclined.type:
                let d = try decode(SavingsEvent.InvitationDeclined.self, event)
                try await connection.run("""
                    UPDATE rm_savings_invitations SET answer = 'declined', answered_at = \(d.at)
                    WHERE owner_id = \(owner) AND goal_id = \(d.goalId) AND invitation_id = \(d.invitationId)
                    """, logger: logger)
            case SavingsEvent.InvitationWithdrawn.type:
                let w = try decode(SavingsEvent.InvitationWithdrawn.self, event)
                try await connection.run("""
                    DELETE FROM rm_savings_invitations WHERE owner_id = \(owner) AND goal_id = \(w.goalId) AND invitation_id = \(w.invitationId)
                    """, logger: logger)
            case SavingsEvent.MemberRemoved.type:
                let m = try decode(SavingsEvent.MemberRemoved.self, event)
                try await connection.run("""
                    DELETE FROM rm_savings_members WHERE owner_id = \(owner) AND goal_id = \(m.goalId) AND user_id = \(m.userId)
                    """, logger: logger)
                try await connection.run("""
                    DELETE FROM rm_savings_invitations
                    WHERE owner_id = \(owner) AND goal_id = \(m.goalId) AND user_id = \(m.userId) AND answer = 'accepted'
                    """, logger: logger)
            case SavingsEvent.MovementAdded.type:
                let m = try decode(SavingsEvent.MovementAdded.self, event)
                // The movement and the goal's version in one statement: a deposit holds its
                // goal's stream for one round trip less.
                try await connection.run("""
                    WITH goal AS (
                      UPDATE rm_savings_goals SET version = \(event.streamVersion) WHERE owner_id = \(owner) AND goal_id = \(m.goalId))
                    INSERT INTO rm_savings_movements (movement_id, owner_id, goal_id, seq, kind, amount, currency, date, occurrence, note, actor_id, created_at)
                    VALUES (\(m.movementId), \(owner), \(m.goalId), \(event.streamVersion), \(m.kind.rawValue), \(m.amount), \(m.currency.code),
                            \(m.date.description)::date, \(m.occurrence?.description)::date, \(m.note), \(m.actorId), \(event.recordedAt))
                    """, logger: logger)
                continue
            case SavingsEvent.MovementDeleted.type:
                let m = try decode(SavingsEvent.MovementDeleted.self, event)
                try await connection.run("""
                    DELETE FROM rm_savings_movements WHERE owner_id = \(owner) AND goal_id = \(m.goalId) AND movement_id = \(m.movementId)
                    """, logger: logger)
            default:
                continue
            }
            // Every later event of the goal's stream moves its version, which commands append at.
            struct AnyGoalEvent: Decodable { var goalId: UUID }
            let goal = try decode(AnyGoalEvent.self, event)
            try await connection.run("""
                UPDATE rm_savings_goals SET version = \(event.streamVersion) WHERE owner_id = \(owner) AND goal_id = \(goal.goalId)
                """, logger: logger)
        }
    }
}
