import Foundation

/// A new goal, as `POST /savings/goals` sends it. Amounts are strings, parsed exactly.
public struct SavingsGoalDraft: Sendable, Decodable {
    public var name: String?
    public var emoji: String?
    public var currency: String?
    public var targetAmount: String?
    public var targetDate: String?

    public init(name: String?, emoji: String? = nil, currency: String?, targetAmount: String? = nil, targetDate: String? = nil) {
        self.name = name
        self.emoji = emoji
        self.currency = currency
        self.targetAmount = targetAmount
        self.targetDate = targetDate
    }
}

/// A partial update: absent fields stay, `null` clears emoji, target_amount or target_date. The
/// currency is fixed once the goal exists.
public struct SavingsGoalChange: Sendable, Decodable {
    public var name: String?
    public var emoji: PatchField<String> = .keep
    public var targetAmount: PatchField<String> = .keep
    public var targetDate: PatchField<String> = .keep
    public var changesCurrency = false

    public init(name: String? = nil, emoji: PatchField<String> = .keep, targetAmount: PatchField<String> = .keep,
                targetDate: PatchField<String> = .keep) {
        self.name = name
        self.emoji = emoji
        self.targetAmount = targetAmount
        self.targetDate = targetDate
    }

    enum CodingKeys: String, CodingKey { case name, emoji, targetAmount, targetDate, currency }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        emoji = try container.decodePatch(String.self, forKey: .emoji)
        targetAmount = try container.decodePatch(String.self, forKey: .targetAmount)
        targetDate = try container.decodePatch(String.self, forKey: .targetDate)
        changesCurrency = container.contains(.currency)
    }
}

/// A plan version, as `PUT /savings/goals/{id}/plan` sends it.
public struct SavingsPlanDraft: Sendable, Decodable {
    public var amount: String?
    public var anchorDay: SavingsAnchorDay?
    public var everyMonths: Int?
    public var startMonth: String?
    public var endMonth: String?

    public init(amount: String?, anchorDay: SavingsAnchorDay?, everyMonths: Int? = 1, startMonth: String?, endMonth: String? = nil) {
        self.amount = amount
        self.anchorDay = anchorDay
        self.everyMonths = everyMonths
        self.startMonth = startMonth
        self.endMonth = endMonth
    }
}

/// A deposit or withdrawal, as `POST /savings/goals/{id}/transactions` sends it.
public struct SavingsMovementDraft: Sendable, Decodable {
    public var kind: String?
    public var amount: String?
    public var currency: String?
    public var date: String?
    public var note: String?
    /// The due date of the plan occurrence this deposit pays.
    public var occurrence: String?

    public init(kind: String?, amount: String?, currency: String? = nil, date: String?, note: String? = nil, occurrence: String? = nil) {
        self.kind = kind
        self.amount = amount
        self.currency = currency
        self.date = date
        self.note = note
        self.occurrence = occurrence
    }
}

/// What a user can ask of a goal. `actor` is who asks: the owner, a member, an invitee (who may
/// only answer their invitation), or anyone else (who learns nothing: 404). Ids of what a
/// command creates come from the caller, so a retried request (same Idempotency-Key) creates
/// the same ids.
public struct SavingsGoalCommand: Sendable {
    public enum Action: Sendable {
        case create(id: UUID, SavingsGoalDraft)
        case change(SavingsGoalChange)
        case delete
        case setPlan(SavingsPlanDraft)
        case endPlan
        /// Invite the account with `email` (as typed); `invitee` is that account, nil when no
        /// account has the address (looked up while loading; the rules decide who hears it).
        case invite(id: UUID, email: String, invitee: UUID?)
        case withdrawInvitation(id: UUID)
        case acceptInvitation(id: UUID)
        case declineInvitation(id: UUID)
        case removeMember(userId: UUID)
        case addMovement(id: UUID, SavingsMovementDraft)
        case deleteMovement(id: UUID)
    }

    public var actor: UUID
    public var action: Action

    public init(actor: UUID, _ action: Action) {
        self.actor = actor
        self.action = action
    }
}
