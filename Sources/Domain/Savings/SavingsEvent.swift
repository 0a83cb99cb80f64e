import Foundation

/// Events of a goal's stream (`savings-goal-<uuid>`, owned by the goal's owner): the goal, its
/// plan changes, its members and the movements of everyone who shares it. Amounts are minor
/// units of the goal's currency.
public enum SavingsEvent {
    public static let streamType = "savings-goal"
    public static func streamId(_ goalId: UUID) -> String { "savings-goal-\(goalId.uuidString.lowercased())" }

    public struct GoalCreated: DomainEvent, Equatable {
        public static let type = "savings.goal_created"
        public var goalId: UUID
        /// The goal's owner (also the stream's).
        public var ownerId: UUID
        public var name: String
        public var emoji: String?
        public var currency: Currency
        public var targetAmount: Int64?
        public var targetDate: LocalDate?
    }

    /// The goal's fields after the change, whole.
    public struct GoalChanged: DomainEvent, Equatable {
        public static let type = "savings.goal_changed"
        public var goalId: UUID
        public var name: String
        public var emoji: String?
        public var targetAmount: Int64?
        public var targetDate: LocalDate?
    }

    public struct GoalDeleted: DomainEvent, Equatable {
        public static let type = "savings.goal_deleted"
        public var goalId: UUID
    }

    /// A plan version, applying from its start month on.
    public struct PlanSet: DomainEvent, Equatable {
        public static let type = "savings.plan_set"
        public var goalId: UUID
        public var plan: SavingsPlan
    }

    /// The plan ends: nothing is due after `after` (the logical today when it was ended).
    public struct PlanEnded: DomainEvent, Equatable {
        public static let type = "savings.plan_ended"
        public var goalId: UUID
        public var after: LocalDate
    }

    /// A member added directly, before invitations (kept readable: members added under that
    /// rule stay members; no command decides it any more).
    public struct MemberAdded: DomainEvent, Equatable {
        public static let type = "savings.member_added"
        public var goalId: UUID
        public var userId: UUID
    }

    /// The owner invited the account with the email they typed. It joins only by accepting,
    /// before `expiresAt`; a later invitation of the same account replaces this one.
    public struct MemberInvited: DomainEvent, Equatable {
        public static let type = "savings.member_invited"
        public var goalId: UUID
        public var invitationId: UUID
        /// The invited account.
        public var userId: UUID
        /// The address as the owner typed it: all they see of the invitee until it is accepted.
        public var email: String
        public var invitedAt: Date
        public var expiresAt: Date
    }

    /// The invitee accepted: from now on a member.
    public struct InvitationAccepted: DomainEvent, Equatable {
        public static let type = "savings.invitation_accepted"
        public var goalId: UUID
        public var invitationId: UUID
        public var userId: UUID
        public var at: Date
    }

    public struct InvitationDeclined: DomainEvent, Equatable {
        public static let type = "savings.invitation_declined"
        public var goalId: UUID
        public var invitationId: UUID
        public var userId: UUID
        public var at: Date
    }

    /// The owner took the invitation back (pending, declined or expired).
    public struct InvitationWithdrawn: DomainEvent, Equatable {
        public static let type = "savings.invitation_withdrawn"
        public var goalId: UUID
        public var invitationId: UUID
    }

    /// The owner removed a member, or the member left.
    public struct MemberRemoved: DomainEvent, Equatable {
        public static let type = "savings.member_removed"
        public var goalId: UUID
        public var userId: UUID
    }

    public struct MovementAdded: DomainEvent, Equatable {
        public static let type = "savings.movement_added"
        public var goalId: UUID
        public var movementId: UUID
        public var kind: SavingsGoal.Movement.Kind
        public var amount: Int64
        public var currency: Currency
        public var date: LocalDate
        public var occurrence: LocalDate?
        public var note: String?
        /// The owner or the member who entered it.
        public var actorId: UUID
    }

    public struct MovementDeleted: DomainEvent, Equatable {
        public static let type = "savings.movement_deleted"
        public var goalId: UUID
        public var movementId: UUID
    }

    public static let types = [
        GoalCreated.type, GoalChanged.type, GoalDeleted.type, PlanSet.type, PlanEnded.type, MemberAdded.type, MemberInvited.type,
        InvitationAccepted.type, InvitationDeclined.type, InvitationWithdrawn.type, MemberRemoved.type, MovementAdded.type, MovementDeleted.type,
    ]
}
