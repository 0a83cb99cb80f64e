import Foundation

/// Events of a goal's stream (`savings-goal-<uuid>`, owned by the goal's owner): the goal, its
/// plan changes, its members and the movements of everyone who shares it. Amounts are minor
/// units of the goal's currency.
public enum SavingsEvent: AreaEvent {
    case goalCreated(GoalCreated)
    case goalChanged(GoalChanged)
    case goalDeleted(GoalDeleted)
    case planSet(PlanSet)
    case planEnded(PlanEnded)
    case memberAdded(MemberAdded)
    case memberInvited(MemberInvited)
    case invitationAccepted(InvitationAccepted)
    case invitationDeclined(InvitationDeclined)
    case invitationWithdrawn(InvitationWithdrawn)
    case memberRemoved(MemberRemoved)
    case movementAdded(MovementAdded)
    case movementDeleted(MovementDeleted)

    public var payload: any DomainEvent {
        switch self {
        case .goalCreated(let event): event
        case .goalChanged(let event): event
        case .goalDeleted(let event): event
        case .planSet(let event): event
        case .planEnded(let event): event
        case .memberAdded(let event): event
        case .memberInvited(let event): event
        case .invitationAccepted(let event): event
        case .invitationDeclined(let event): event
        case .invitationWithdrawn(let event): event
        case .memberRemoved(let event): event
        case .movementAdded(let event): event
        case .movementDeleted(let event): event
        }
    }

    public init?(type: String, version: Int16, json: String) throws {
        switch type {
        case GoalCreated.type: self = .goalCreated(try Self.payload(GoalCreated.self, version, json))
        case GoalChanged.type: self = .goalChanged(try Self.payload(GoalChanged.self, version, json))
        case GoalDeleted.type: self = .goalDeleted(try Self.payload(GoalDeleted.self, version, json))
        case PlanSet.type: self = .planSet(try Self.payload(PlanSet.self, version, json))
        case PlanEnded.type: self = .planEnded(try Self.payload(PlanEnded.self, version, json))
        case MemberAdded.type: self = .memberAdded(try Self.payload(MemberAdded.self, version, json))
        case MemberInvited.type: self = .memberInvited(try Self.payload(MemberInvited.self, version, json))
        case InvitationAccepted.type: self = .invitationAccepted(try Self.payload(InvitationAccepted.self, version, json))
        case InvitationDeclined.type: self = .invitationDeclined(try Self.payload(InvitationDeclined.self, version, json))
        case InvitationWithdrawn.type: self = .invitationWithdrawn(try Self.payload(InvitationWithdrawn.self, version, json))
        case MemberRemoved.type: self = .memberRemoved(try Self.payload(MemberRemoved.self, version, json))
        case MovementAdded.type: self = .movementAdded(try Self.payload(MovementAdded.self, version, json))
        case MovementDeleted.type: self = .movementDeleted(try Self.payload(MovementDeleted.self, version, json))
        default: return nil
        }
    }


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
