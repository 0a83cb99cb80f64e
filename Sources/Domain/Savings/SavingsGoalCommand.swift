import Foundation

/// A new goal's fields, as `POST /savings/goals` sends them (`SavingsGoalDraft`: text, the name
/// and currency may be missing) and as the rules take them (`NewSavingsGoal`: the name trimmed,
/// a `Currency`, the target in its minor units, a `LocalDate`), which
/// `NewSavingsGoal.validated(from:)` reads a draft into.
public struct SavingsGoalFields<Name: Sendable, Code: Sendable, Amount: Sendable, Day: Sendable>: Sendable {
    public var name: Name
    public var emoji: String?
    public var currency: Code
    public var targetAmount: Amount?
    public var targetDate: Day?

    public init(name: Name, emoji: String? = nil, currency: Code, targetAmount: Amount? = nil, targetDate: Day? = nil) {
        self.name = name
        self.emoji = emoji
        self.currency = currency
        self.targetAmount = targetAmount
        self.targetDate = targetDate
    }
}

public typealias SavingsGoalDraft = SavingsGoalFields<String?, String?, String, String>
public typealias NewSavingsGoal = SavingsGoalFields<String, Currency, Int64, LocalDate>

extension SavingsGoalFields: Equatable where Name: Equatable, Code: Equatable, Amount: Equatable, Day: Equatable {}

extension SavingsGoalFields: Decodable where Name == String?, Code == String?, Amount == String, Day == String {
    enum CodingKeys: String, CodingKey { case name, emoji, currency, targetAmount, targetDate }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        emoji = try container.decodeIfPresent(String.self, forKey: .emoji)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        targetAmount = try container.decodeIfPresent(String.self, forKey: .targetAmount)
        targetDate = try container.decodeIfPresent(String.self, forKey: .targetDate)
    }
}

/// A partial update's fields, as `PATCH /savings/goals/{id}` sends them (`SavingsGoalChangeDraft`)
/// and as the rules take them (`SavingsGoalChange`: the target amount unscaled, as the goal's
/// currency decides its digits): absent fields stay, `null` clears emoji, target_amount or
/// target_date. The currency is fixed once the goal exists.
public struct SavingsGoalChangeFields<Amount: Sendable, Day: Sendable>: Sendable {
    public var name: String?
    public var emoji: PatchField<String> = .keep
    public var targetAmount: PatchField<Amount> = .keep
    public var targetDate: PatchField<Day> = .keep
    /// Only ever refused: a goal keeps its currency.
    public var changesCurrency = false

    public init(name: String? = nil, emoji: PatchField<String> = .keep, targetAmount: PatchField<Amount> = .keep,
                targetDate: PatchField<Day> = .keep) {
        self.name = name
        self.emoji = emoji
        self.targetAmount = targetAmount
        self.targetDate = targetDate
    }
}

public typealias SavingsGoalChangeDraft = SavingsGoalChangeFields<String, String>
public typealias SavingsGoalChange = SavingsGoalChangeFields<DecimalAmount, LocalDate>

extension SavingsGoalChangeFields: Equatable where Amount: Equatable, Day: Equatable {}

extension SavingsGoalChangeFields: Decodable where Amount: Decodable, Day: Decodable {
    enum CodingKeys: String, CodingKey { case name, emoji, targetAmount, targetDate, currency }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        emoji = try container.decodePatch(String.self, forKey: .emoji)
        targetAmount = try container.decodePatch(Amount.self, forKey: .targetAmount)
        targetDate = try container.decodePatch(Day.self, forKey: .targetDate)
        changesCurrency = container.contains(.currency)
    }
}

/// A plan version's fields, as `PUT /savings/goals/{id}/plan` sends them (`SavingsPlanDraft`) and
/// as the rules take them (`NewSavingsPlan`: the amount unscaled, as the goal's currency decides
/// its digits; `LocalMonth`s; every_months set).
public struct SavingsPlanFields<Amount: Sendable, Month: Sendable>: Sendable {
    public var amount: Amount?
    public var anchorDay: SavingsAnchorDay?
    public var everyMonths: Int?
    public var startMonth: Month?
    public var endMonth: Month?

    public init(amount: Amount?, anchorDay: SavingsAnchorDay?, everyMonths: Int? = 1, startMonth: Month?, endMonth: Month? = nil) {
        self.amount = amount
        self.anchorDay = anchorDay
        self.everyMonths = everyMonths
        self.startMonth = startMonth
        self.endMonth = endMonth
    }
}

public typealias SavingsPlanDraft = SavingsPlanFields<String, String>
public typealias NewSavingsPlan = SavingsPlanFields<DecimalAmount, LocalMonth>

extension SavingsPlanFields: Decodable where Amount: Decodable, Month: Decodable {}
extension SavingsPlanFields: Equatable where Amount: Equatable, Month: Equatable {}

/// A deposit's or withdrawal's fields, as `POST /savings/goals/{id}/transactions` sends them
/// (`SavingsMovementDraft`) and as the rules take them (`NewSavingsMovement`: a kind, the amount
/// unscaled, `LocalDate`s). The currency stays as sent: it is only compared with the goal's, and
/// anything else, an ISO code or not, is refused naming the goal's.
public struct SavingsMovementFields<Kind: Sendable, Amount: Sendable, Day: Sendable>: Sendable {
    public var kind: Kind?
    public var amount: Amount?
    public var currency: String?
    public var date: Day?
    public var note: String?
    /// The due date of the plan occurrence this deposit pays.
    public var occurrence: Day?

    public init(kind: Kind?, amount: Amount?, currency: String? = nil, date: Day?, note: String? = nil, occurrence: Day? = nil) {
        self.kind = kind
        self.amount = amount
        self.currency = currency
        self.date = date
        self.note = note
        self.occurrence = occurrence
    }
}

public typealias SavingsMovementDraft = SavingsMovementFields<String, String, String>
public typealias NewSavingsMovement = SavingsMovementFields<SavingsGoal.Movement.Kind, DecimalAmount, LocalDate>

extension SavingsMovementFields: Decodable where Kind: Decodable, Amount: Decodable, Day: Decodable {}
extension SavingsMovementFields: Equatable where Kind: Equatable, Amount: Equatable, Day: Equatable {}

/// The address an owner invites, as `POST /savings/goals/{id}/members` sends it and as the rules
/// take it: trimmed (what the owner sees of the invitation), and plausibly an address.
public struct SavingsInvitee: Sendable, Equatable, Decodable {
    public var email: String
    public init(email: String) { self.email = email }
}

/// What a user can ask of a goal, in domain types read at the edge. `actor` is who asks: the
/// owner, a member, an invitee (who may only answer their invitation), or anyone else (who
/// learns nothing: 404). The member rule speaks before anything is said of a request's fields,
/// so the commands on an existing goal carry their draft's errors (`Checked`) for the decider
/// to report after it. Ids of what a command creates come from the caller, so a retried request
/// (same Idempotency-Key) creates the same ids.
public struct SavingsGoalCommand: Sendable {
    public enum Action: Sendable {
        case create(id: UUID, NewSavingsGoal)
        case change(Checked<SavingsGoalChange>)
        case delete
        case setPlan(Checked<NewSavingsPlan>)
        case endPlan
        /// Invite the account with this address; `invitee` is that account, nil when no account
        /// has the address (looked up while loading; the rules decide who hears it).
        case invite(id: UUID, Checked<SavingsInvitee>, invitee: UUID?)
        case withdrawInvitation(id: UUID)
        case acceptInvitation(id: UUID)
        case declineInvitation(id: UUID)
        case removeMember(userId: UUID)
        case addMovement(id: UUID, Checked<NewSavingsMovement>)
        case deleteMovement(id: UUID)
    }

    public var actor: UUID
    public var action: Action

    public init(actor: UUID, _ action: Action) {
        self.actor = actor
        self.action = action
    }
}
