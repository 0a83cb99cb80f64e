import Foundation

/// A new transaction, as `POST /finance/transactions` sends it.
public struct TransactionDraft: Sendable, Decodable {
    public var kind: MoneyFlow?
    public var amount: String?
    public var currency: String?
    public var categoryId: UUID?
    public var date: String?
    public var note: String?

    public init(kind: MoneyFlow?, amount: String?, currency: String? = nil, categoryId: UUID? = nil, date: String? = nil, note: String? = nil) {
        self.kind = kind
        self.amount = amount
        self.currency = currency
        self.categoryId = categoryId
        self.date = date
        self.note = note
    }
}

/// A partial update: absent fields stay, `null` clears the category or the note.
public struct TransactionChange: Sendable, Decodable {
    public var kind: MoneyFlow?
    public var amount: String?
    public var currency: String?
    public var categoryId: PatchField<UUID> = .keep
    public var date: String?
    public var note: PatchField<String> = .keep

    public init(kind: MoneyFlow? = nil, amount: String? = nil, currency: String? = nil, categoryId: PatchField<UUID> = .keep,
                date: String? = nil, note: PatchField<String> = .keep) {
        self.kind = kind
        self.amount = amount
        self.currency = currency
        self.categoryId = categoryId
        self.date = date
        self.note = note
    }

    enum CodingKeys: String, CodingKey { case kind, amount, currency, categoryId, date, note }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decodeIfPresent(MoneyFlow.self, forKey: .kind)
        amount = try container.decodeIfPresent(String.self, forKey: .amount)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        categoryId = try container.decodePatch(UUID.self, forKey: .categoryId)
        date = try container.decodeIfPresent(String.self, forKey: .date)
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

public enum TransactionCommand: Sendable {
    /// `currency` is the user's, for a draft that names none.
    case record(id: UUID, TransactionDraft, currency: Currency)
    case change(TransactionChange)
    case delete

    /// The category the command names, which the state must know of.
    public var categoryNamed: UUID? {
        switch self {
        case .record(_, let draft, _): draft.categoryId
        case .change(let change): change.categoryId.newValue
        case .delete: nil
        }
    }
}
