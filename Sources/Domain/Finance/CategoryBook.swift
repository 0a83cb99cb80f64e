import Foundation

/// One user's finance categories and their budgets, as `CategoryDecider` sees them.
public struct CategoryBook: Sendable, Equatable {
    public struct Category: Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var emoji: String?
        public var kind: MoneyFlow
        public var color: String?
        public var archived = false
        /// Budget steps by the month they start; a nil amount ends the budget from then.
        public var budgets: [LocalMonth: Money?] = [:]
        /// Events applied to this category; 1 = untouched since created. Its ETag.
        public var revision: Int64 = 1

        /// The budget in force in `month`: the latest step on or before it.
        public func budget(in month: LocalMonth) -> Money? {
            budgets.filter { $0.key <= month }.max { $0.key < $1.key }?.value ?? nil
        }
    }

    public var categories: [UUID: Category] = [:]

    public init(categories: [UUID: Category] = [:]) { self.categories = categories }

    public static let maximumActive = 200

    public var activeCount: Int { categories.values.count { !$0.archived } }

    /// An active category of `kind` with this name (compared without case), other than `except`.
    public func activeNamed(_ name: String, kind: MoneyFlow, except: UUID? = nil) -> Category? {
        categories.values.first {
            !$0.archived && $0.kind == kind && $0.id != except && $0.name.lowercased() == name.lowercased()
        }
    }

    func category(_ id: UUID) throws(ResourceError) -> Category {
        guard let category = categories[id] else { throw .notFound }
        return category
    }
}
