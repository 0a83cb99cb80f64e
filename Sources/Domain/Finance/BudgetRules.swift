import Foundation

/// How a month's budget is set and how its use is judged.
public enum BudgetRules {
    public enum Status: String, Sendable, Codable {
        case under, near, over

        /// The design system's colour for it: clients draw this, they do not judge the use.
        public var colorToken: String {
            switch self {
            case .under: "ds.semantic.positive"
            case .near: "ds.semantic.warning"
            case .over: "ds.semantic.negative"
            }
        }
    }

    /// `near` from this share of the budget used.
    public static let nearPercent: Int64 = 80

    /// The step a `PUT …/budget` asks for: an active expense category's (said first), then the
    /// month, currency and amount read from the draft (`BudgetStep.checked`).
    static func step(_ checked: Checked<BudgetStep>, for category: CategoryBook.Category) throws
        -> (from: LocalMonth, minorUnits: Int64, currency: Currency)
    {
        guard category.kind == .expense else { throw ValidationFailure("category", "budgets are for expense categories") }
        guard !category.archived else { throw ResourceError.conflict("The category is archived.") }
        let step = try checked.get()
        guard let month = step.fromMonth, let amount = step.amount, let currency = step.currency else {
            throw ValidationFailure("amount", "is required")
        }
        return (month, amount, currency)
    }

    /// `under` below 80 % used, `near` from 80 % up to 100 %, `over` above 100 %; exact, on
    /// minor units.
    public static func status(spent: Int128, budget: Int128) -> Status {
        if spent > budget { return .over }
        if spent * 100 >= budget * Int128(nearPercent) { return .near }
        return .under
    }
}

extension BudgetRules {
    /// The budgets of several months added up, one exact sum per currency.
    public static func total(of budgets: [Money]) -> [Money] {
        Dictionary(grouping: budgets, by: \.currency)
            .map { Money(minorUnits: $0.value.map(\.minorUnits).exactSum, currency: $0.key) }
            .sorted { $0.currency < $1.currency }
    }
}
