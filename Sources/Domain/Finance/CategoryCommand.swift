import Foundation

/// A category's fields, as `POST /finance/categories` sends them (`CategoryDraft`: the name and
/// the kind may be missing) and as the rules take them (`NewCategory`: the name trimmed, a kind),
/// which `NewCategory.validated(from:)` reads a draft into.
public struct CategoryFields<Name: Sendable, Kind: Sendable>: Sendable {
    public var name: Name
    public var emoji: String?
    public var kind: Kind
    public var color: String?

    public init(name: Name, emoji: String? = nil, kind: Kind, color: String? = nil) {
        self.name = name
        self.emoji = emoji
        self.kind = kind
        self.color = color
    }
}

public typealias CategoryDraft = CategoryFields<String?, MoneyFlow?>
public typealias NewCategory = CategoryFields<String, MoneyFlow>

extension CategoryFields: Equatable where Name: Equatable, Kind: Equatable {}

extension CategoryFields: Decodable where Name == String?, Kind == MoneyFlow? {
    enum CodingKeys: String, CodingKey { case name, emoji, kind, color }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        emoji = try container.decodeIfPresent(String.self, forKey: .emoji)
        kind = try container.decodeIfPresent(MoneyFlow.self, forKey: .kind)
        color = try container.decodeIfPresent(String.self, forKey: .color)
    }
}

/// A partial update: absent fields stay, `null` clears emoji or color. The kind cannot change:
/// the category's transactions were recorded as that kind. Read at the edge as it is, its name
/// trimmed (`CategoryChange.checked`).
public struct CategoryChange: Sendable, Equatable, Decodable {
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

/// A budget step, as `PUT /finance/categories/{id}/budget` sends it (`BudgetDraft`) and as the
/// rules take it (`BudgetStep`: its first month, and the amount in minor units of the currency
/// it names), which `BudgetStep.checked(from:)` reads a draft into.
public struct BudgetFields<Amount: Sendable, Code: Sendable, Month: Sendable>: Sendable {
    public var amount: Amount?
    public var currency: Code?
    public var fromMonth: Month?

    public init(amount: Amount?, currency: Code?, fromMonth: Month?) {
        self.amount = amount
        self.currency = currency
        self.fromMonth = fromMonth
    }
}

public typealias BudgetDraft = BudgetFields<String, String, String>
public typealias BudgetStep = BudgetFields<Int64, Currency, LocalMonth>

extension BudgetFields: Decodable where Amount: Decodable, Code: Decodable, Month: Decodable {}
extension BudgetFields: Equatable where Amount: Equatable, Code: Equatable, Month: Equatable {}

/// The month a budget ends from, as `DELETE /finance/categories/{id}/budget?from_month=` names it
/// (`BudgetEndDraft`) and as the rules take it (`BudgetEnd`; nil: the logical today's month).
public struct BudgetEndFields<Month: Sendable>: Sendable {
    public var fromMonth: Month?
    public init(fromMonth: Month?) { self.fromMonth = fromMonth }
}

public typealias BudgetEndDraft = BudgetEndFields<String>
public typealias BudgetEnd = BudgetEndFields<LocalMonth>

extension BudgetEndFields: Decodable where Month: Decodable {}
extension BudgetEndFields: Equatable where Month: Equatable {}

/// What a client can ask of their categories, in domain types read at the edge. The commands
/// on an existing category carry the draft's errors (`Checked`): that the category is there,
/// and what its kind allows, is said first.
public enum CategoryCommand: Sendable {
    case create(id: UUID, NewCategory)
    case change(categoryId: UUID, Checked<CategoryChange>)
    case archive(categoryId: UUID)
    case setBudget(categoryId: UUID, Checked<BudgetStep>)
    case endBudget(categoryId: UUID, Checked<BudgetEnd>)
}
