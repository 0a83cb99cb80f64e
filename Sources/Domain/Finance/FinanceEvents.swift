import Foundation

/// Income or expense: a category's kind and a transaction's direction. Amounts are always
/// positive; the kind says which way the money went.
public enum MoneyFlow: String, Sendable, Codable, CaseIterable {
    case income, expense
}

/// Events of a user's category book (`finance-categories-<owner>`): every category and budget of
/// one user in one stream, so "names are unique among active categories" is decided on one
/// consistent state, however many requests run at once.
public enum CategoryEvent: AreaEvent {
    case created(Created)
    case changed(Changed)
    case archived(Archived)
    case budgetSet(BudgetSet)

    public var payload: any DomainEvent {
        switch self {
        case .created(let event): event
        case .changed(let event): event
        case .archived(let event): event
        case .budgetSet(let event): event
        }
    }

    public init?(type: String, version: Int16, json: String) throws {
        switch type {
        case Created.type: self = .created(try Self.payload(Created.self, version, json))
        case Changed.type: self = .changed(try Self.payload(Changed.self, version, json))
        case Archived.type: self = .archived(try Self.payload(Archived.self, version, json))
        case BudgetSet.type: self = .budgetSet(try Self.payload(BudgetSet.self, version, json))
        default: return nil
        }
    }


    public static let streamType = "finance-categories"
    public static func streamId(_ owner: UUID) -> String { "finance-categories-\(owner.uuidString.lowercased())" }

    public struct Created: DomainEvent, Equatable {
        public static let type = "finance.category.created"
        public var categoryId: UUID
        public var name: String
        public var emoji: String?
        public var kind: MoneyFlow
        public var color: String?
        public init(categoryId: UUID, name: String, emoji: String?, kind: MoneyFlow, color: String?) {
            (self.categoryId, self.name, self.emoji, self.kind, self.color) = (categoryId, name, emoji, kind, color)
        }
    }

    /// The category's fields after the change, whole.
    public struct Changed: DomainEvent, Equatable {
        public static let type = "finance.category.changed"
        public var categoryId: UUID
        public var name: String
        public var emoji: String?
        public var color: String?
        public init(categoryId: UUID, name: String, emoji: String?, color: String?) {
            (self.categoryId, self.name, self.emoji, self.color) = (categoryId, name, emoji, color)
        }
    }

    /// Deleting archives: past transactions keep their category.
    public struct Archived: DomainEvent, Equatable {
        public static let type = "finance.category.archived"
        public var categoryId: UUID
        public init(categoryId: UUID) { self.categoryId = categoryId }
    }

    /// From `fromMonth` on (until a later step), the category's monthly budget is this amount;
    /// nil amount ends the budget from that month.
    public struct BudgetSet: DomainEvent, Equatable {
        public static let type = "finance.budget.set"
        public var categoryId: UUID
        public var fromMonth: LocalMonth
        public var amountMinor: Int64?
        public var currency: Currency?
        public init(categoryId: UUID, fromMonth: LocalMonth, amountMinor: Int64?, currency: Currency?) {
            (self.categoryId, self.fromMonth, self.amountMinor, self.currency) = (categoryId, fromMonth, amountMinor, currency)
        }
    }

    public static let types = [Created.type, Changed.type, Archived.type, BudgetSet.type]
}

/// Events of one transaction's stream (`finance-transaction-<uuid>`): transactions are
/// independent of each other, so writers never queue behind one another.
public enum TransactionEvent: AreaEvent {
    case recorded(Recorded)
    case changed(Changed)
    case deleted(Deleted)

    public var payload: any DomainEvent {
        switch self {
        case .recorded(let event): event
        case .changed(let event): event
        case .deleted(let event): event
        }
    }

    public init?(type: String, version: Int16, json: String) throws {
        switch type {
        case Recorded.type: self = .recorded(try Self.payload(Recorded.self, version, json))
        case Changed.type: self = .changed(try Self.payload(Changed.self, version, json))
        case Deleted.type: self = .deleted(try Self.payload(Deleted.self, version, json))
        default: return nil
        }
    }


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

        public init(transactionId: UUID, kind: MoneyFlow, amountMinor: Int64, currency: Currency, categoryId: UUID?, date: LocalDate, note: String?) {
            (self.transactionId, self.kind, self.amountMinor, self.currency) = (transactionId, kind, amountMinor, currency)
            (self.categoryId, self.date, self.note) = (categoryId, date, note)
        }
    }

    public struct Changed: DomainEvent, Equatable {
        public static let type = "finance.transaction.changed"
        public var transaction: Recorded
        public init(transaction: Recorded) { self.transaction = transaction }
    }

    public struct Deleted: DomainEvent, Equatable {
        public static let type = "finance.transaction.deleted"
        public var transactionId: UUID
        public init(transactionId: UUID) { self.transactionId = transactionId }
    }

    public static let types = [Recorded.type, Changed.type, Deleted.type]
}
