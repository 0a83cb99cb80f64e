import Foundation

// The rules a category's drafts alone decide. What needs the user's book (a name taken, a kind
// that cannot change, a budget only for an active expense category) stays with `CategoryDecider`.

extension CategoryFields: ValidatedInput where Name == String, Kind == MoneyFlow {
    public static func validated(from draft: CategoryDraft) -> Result<NewCategory, ValidationFailure> {
        var errors = FieldErrors()
        if draft.name == nil { errors.add(FieldError("name", "is required")) }
        if draft.kind == nil { errors.add(FieldError("kind", "is required: income or expense")) }
        let name = draft.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        errors.add(CategoryRules.fieldErrors(name: name, emoji: draft.emoji, color: draft.color))
        return errors.result {
            guard let name, let kind = draft.kind else { return nil }
            return NewCategory(name: name, emoji: draft.emoji, kind: kind, color: draft.color)
        }
    }
}

extension CategoryChange: CheckedInput {
    public static let fieldOrder = ["kind", "name", "emoji", "color"]

    public static func checked(from draft: CategoryChange) -> Result<Checked<CategoryChange>, ValidationFailure> {
        var change = draft
        change.name = draft.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        var errors = FieldErrors()
        errors.add(CategoryRules.fieldErrors(name: change.name, emoji: change.emoji.newValue, color: change.color.newValue))
        return .success(errors.checked(change))
    }
}

extension BudgetFields: CheckedInput where Amount == Int64, Code == Currency, Month == LocalMonth {
    public static var fieldOrder: [String] { ["category", "from_month", "currency", "amount"] }

    /// A month, a currency named, and an amount in it: everything is in the draft.
    public static func checked(from draft: BudgetDraft) -> Result<Checked<BudgetStep>, ValidationFailure> {
        var errors = FieldErrors()
        let month = errors.parse(draft.fromMonth, field: "from_month", rule: "must be a month as YYYY-MM", LocalMonth.init)
        if draft.fromMonth == nil { errors.add(FieldError("from_month", "is required")) }
        let currency = errors.parse(draft.currency, field: "currency", rule: "must be an ISO 4217 code such as EUR", Currency.init)
        if draft.currency == nil { errors.add(FieldError("currency", "is required")) }
        var amount: Int64?
        if let currency {
            if draft.amount == nil { errors.add(FieldError("amount", "is required")) }
            amount = errors.read(draft.amount) { text throws(ValidationFailure) in try DecimalAmount(text).minorUnits(in: currency) }
        }
        return .success(errors.checked(BudgetStep(amount: amount, currency: currency, fromMonth: month)))
    }
}

extension BudgetEndFields: CheckedInput where Month == LocalMonth {
    public static var fieldOrder: [String] { ["from_month"] }

    public static func checked(from draft: BudgetEndDraft) -> Result<Checked<BudgetEnd>, ValidationFailure> {
        var errors = FieldErrors()
        let month = errors.parse(draft.fromMonth, field: "from_month", rule: "must be a month as YYYY-MM", LocalMonth.init)
        return .success(errors.checked(BudgetEnd(fromMonth: month)))
    }
}

enum CategoryRules {
    static func fieldErrors(name: String?, emoji: String?, color: String?) -> [FieldError] {
        [name.flatMap { TextRules.labelError($0, field: "name", maxLength: 100) },
         TextRules.optionalLabelError(emoji, field: "emoji", maxLength: 16),
         TextRules.optionalLabelError(color, field: "color", maxLength: 32)].compactMap { $0 }
    }
}
