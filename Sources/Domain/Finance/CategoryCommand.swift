import Foundation

/// A new category, as `POST /finance/categories` sends it.
public struct CategoryDraft: Sendable, Decodable {
    public var name: String?
    public var emoji: String?
    public var kind: MoneyFlow?
    public var color: String?

    public init(name: String?, emoji: String? = nil, kind: MoneyFlow?, color: String? = nil) {
        self.name = name
        self.emoji = emoji
        self.kind = kind
        self.color = color
    }
}

/// A partial update: absent fields stay, `null` clears emoji or color. The kind cannot change:
/// the category's transactions were recorded as that kind.
public struct CategoryChange: Sendable, Decodable {
    public var name: String?
    public var emoji: PatchField<String> = .keep
    public var color: PatchField<String> = .keep
    public var kind: MoneyFlow?

    public init(name: String? = nil, emoji: PatchField<String> = .keep, color: PatchField<String> = .keep, kind: MoneyFlow? = nil) {
        self.name = name
        self.emoji = emoji
        self.color = color
        self.kind = kind
    }

    enum CodingKeys: String, CodingKey { case name, emoji, color, kind }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        emoji = try container.decodePatch(String.self, forKey: .emoji)
        color = try container.decodePatch(String.self, forKey: .color)
        kind = try container.decodeIfPresent(MoneyFlow.self, forKey: .kind)
    }
}

/// `PUT /finance/categories/{id}/budget`.
public struct BudgetRequest: Sendable, Decodable {
    public var amount: String?
    public var currency: String?
    public var fromMonth: String?

    public init(amount: String?, currency: String?, fromMonth: String?) {
        self.amount = amount
        self.currency = currency
        self.fromMonth = fromMonth
    }
}

public enum CategoryCommand: Sendable {
    case create(id: UUID, CategoryDraft)
    case change(categoryId: UUID, CategoryChange)
    case archive(categoryId: UUID)
    case setBudget(categoryId: UUID, BudgetRequest)
    /// Ends the budget from `fromMonth` (default: the logical today's month).
    case endBudget(categoryId: UUID, fromMonth: String?)
}
