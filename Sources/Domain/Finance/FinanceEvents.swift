import Foundation

/// Income or expense: a category's kind and a transaction's direction. Amounts are always
/// positive; the kind says which way the money went.
public enum MoneyFlow: String, Sendable, Codable, CaseIterable {
    case income, expense
}

/// Events of a user's category book (`finance-categories-<owner>`): every category and budget of
/// one user in one stream, so "names are unique among active categories" is decided on one
/// consistent state, however many requests run at once.
public enum CategoryEvent {
    public static let streamType = "finance-categories"
    public static func streamId(_ owner: UUID) -> String { "finance-categories-\(owner.uuidString.lowercased())" }

    public struct Created: DomainEvent, Equatable {
        public static let type = "finance.category.created"
        public var categoryId: UUID
        public var name: String
        public var emoji: String?
        public var kind: MoneyFlow
        public var color: String?
    }

    /// The category's fields after the change, whole.
    public struct Changed: DomainEvent, Equatable {
        public static let type = "finance.category.changed"
        public var categoryId: UUID
        public var name: String
        public var emoji: String?
        public var color: String?
    }

    /// Deleting archives: past transactions keep their category.
    public struct Archived: DomainEvent, Equatable {
        public static let type = "finance.category.archived"
        public var categoryId: UUID
    }

    /// From `fromMonth` on (until a later step), the category's monthly budget is this amount;
    /// nil amount ends the budget from that month.
    public struct BudgetSet: DomainEvent, Equatable {
        public static let type = "finance.budget.set"
        public var categoryId: UUID
        public var fromMonth: LocalMonth
        public var amountMinor: Int64?
        public var currency: Currency?
    }

    public static let types = [Created.type, Changed.type, Archived.type, BudgetSet.type]

    /// A stored payload of one of `types`, decoded (and upcast) to its event.
    public static func decode(type: String, version: Int16, json: String) throws -> (any DomainEvent)? {
        switch type {
        case Created.type: try EventUpcasting.decode(Created.self, type: type, version: version, json: json)
        case Changed.type: try EventUpcasting.decode(Changed.self, type: type, version: version, json: json)
        case Archived.type: try EventUpcasting.decode(Archived.self, type: type, version: version, json: json)
        case BudgetSet.type: try EventUpcasting.decode(BudgetSet.self, type: type, version: version, json: json)
        default: nil
        }
    }
}

/// Events of one transaction's stream (`finance-transaction-<uuid>`): transactions are
/// independent of each other, so writers never queue behind one another.
public enum TransactionEvent {
    public static let streamType = "finance-transaction"
    public static func streamId(_ transactionId: UUID) -> String { "finance-transaction-\(transactionId.uuidString.lowercased())" }

    /// The transaction's fields, whole: recorded first, then after every change.
    public struct Recorded: DomainEvent, Equatable {
        public static let type = "finance.transaction.recorded"
        public var transactionId: UUID
        public var kind: MoneyFlow
        public var amountMinor: Int64
        public var currency: Currency
        public var categoryId: UUID?
        public var date: LocalDate
        public var note: String?

        public var amount: Money { Money(minorUnits: amountMinor, currency: currency) }
    }

    public struct Changed: DomainEvent, Equatable {
        public static let type = "finance.transaction.changed"
        public var transaction: Recorded
    }

    public struct Deleted: DomainEvent, Equatable {
        public static let type = "finance.transaction.deleted"
        public var transactionId: UUID
    }

    public static let types = [Recorded.type, Changed.type, Deleted.type]

    public static func decode(type: String, version: Int16, json: String) throws -> (any DomainEvent)? {
        switch type {
        case Recorded.type: try EventUpcasting.decode(Recorded.self, type: type, version: version, json: json)
        case Changed.type: try EventUpcasting.decode(Changed.self, type: type, version: version, json: json)
        case Deleted.type: try EventUpcasting.decode(Deleted.self, type: type, version: version, json: json)
        default: nil
        }
    }
}
