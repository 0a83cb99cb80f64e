import Foundation

/// A transaction's fields, as `POST /finance/transactions` sends them (`TransactionDraft`: the
/// amount, currency and date as text) and as the rules take them (`NewTransaction`: a
/// `DecimalAmount`, a `Currency`, a `LocalDate`), which `NewTransaction.checked(from:)` reads a
/// draft into. The amount stays unscaled: with no currency sent, its digits are those of the
/// user's currency, which the decision knows.
public struct TransactionFields<Amount: Sendable, Code: Sendable, Day: Sendable>: Sendable {
    public var kind: MoneyFlow?
    public var amount: Amount?
    /// Nil: the user's currency.
    public var currency: Code?
    public var categoryId: UUID?
    /// Nil: the logical today.
    public var date: Day?
    public var note: String?

    public init(kind: MoneyFlow?, amount: Amount?, currency: Code? = nil, categoryId: UUID? = nil, date: Day? = nil, note: String? = nil) {
        self.kind = kind
        self.amount = amount
        self.currency = currency
        self.categoryId = categoryId
        self.date = date
        self.note = note
    }
}

public typealias TransactionDraft = TransactionFields<String, String, String>
public typealias NewTransaction = TransactionFields<DecimalAmount, Currency, LocalDate>

extension TransactionFields: Decodable where Amount: Decodable, Code: Decodable, Day: Decodable {}
extension TransactionFields: Equatable where Amount: Equatable, Code: Equatable, Day: Equatable {}

/// A partial update's fields, as `PATCH /finance/transactions/{id}` sends them
/// (`TransactionChangeDraft`) and as the rules take them (`TransactionChange`): absent fields
/// stay, `null` clears the category or the note.
public struct TransactionChangeFields<Amount: Sendable, Code: Sendable, Day: Sendable>: Sendable {
    public var kind: MoneyFlow?
    public var amount: Amount?
    public var currency: Code?
    public var categoryId: PatchField<UUID> = .keep
    public var date: Day?
    public var note: PatchField<String> = .keep

    public init(kind: MoneyFlow? = nil, amount: Amount? = nil, currency: Code? = nil, categoryId: PatchField<UUID> = .keep,
                date: Day? = nil, note: PatchField<String> = .keep) {
        self.kind = kind
        self.amount = amount
        self.currency = currency
        self.categoryId = categoryId
        self.date = date
        self.note = note
    }
}

public typealias TransactionChangeDraft = TransactionChangeFields<String, String, String>
public typealias TransactionChange = TransactionChangeFields<DecimalAmount, Currency, LocalDate>

extension TransactionChangeFields: Equatable where Amount: Equatable, Code: Equatable, Day: Equatable {}

extension TransactionChangeFields: Decodable where Amount: Decodable, Code: Decodable, Day: Decodable {
    enum CodingKeys: String, CodingKey { case kind, amount, currency, categoryId, date, note }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decodeIfPresent(MoneyFlow.self, forKey: .kind)
        amount = try container.decodeIfPresent(Amount.self, forKey: .amount)
        currency = try container.decodeIfPresent(Code.self, forKey: .currency)
        categoryId = try container.decodePatch(UUID.self, forKey: .categoryId)
        date = try container.decodeIfPresent(Day.self, forKey: .date)
        note = try container.decodePatch(String.self, forKey: .note)
    }
}

/// A transaction as its rules see it: its fields (nil before it is recorded and after it is
/// deleted) and the user's categories the decision may refer to, read beside the stream.
public struct TransactionState: Sendable, Equatable {
    public struct CategoryRef: Sendable, Equatable {
        public var kind: MoneyFlow
        public var archived: Bool
        public init(kind: MoneyFlow, archived: Bool) {
            self.kind = kind
            self.archived = archived
        }
    }

    public var transaction: TransactionEvent.Recorded?
    /// The categories the command and the transaction name, when the user has them.
    public var categories: [UUID: CategoryRef]

    public init(transaction: TransactionEvent.Recorded? = nil, categories: [UUID: CategoryRef] = [:]) {
        self.transaction = transaction
        self.categories = categories
    }
}

/// What a client can ask of a transaction, in domain types read at the edge (`Checked`: the
/// decider reports the draft's errors with its own).
public enum TransactionCommand: Sendable {
    /// `currency` is the user's, for a transaction that names none.
    case record(id: UUID, Checked<NewTransaction>, currency: Currency)
    case change(Checked<TransactionChange>)
    case delete

    /// The category the command names, which the state must know of.
    public var categoryNamed: UUID? {
        switch self {
        case .record(_, let new, _): new.input.categoryId
        case .change(let change): change.input.categoryId.newValue
        case .delete: nil
        }
    }
}
