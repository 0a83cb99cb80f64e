import Foundation

/// Rules for a habit's amounts and decorations, shared by create, change and log.
public enum HabitFieldRules {
    /// A day's value or a target: above 0 and at most a billion (steps, millilitres and pages
    /// all fit), so sums stay exact and a slip of the keyboard is caught.
    public static let maximumAmount: Decimal = 1_000_000_000

    public static func amountError(_ amount: Decimal, field: String) -> FieldError? {
        guard amount > 0, amount <= maximumAmount else { return FieldError(field, "must be above 0 and at most \(maximumAmount)") }
        return nil
    }

    /// Emoji, colour and unit are short labels an app shows beside the name.
    public static func decorationErrors(emoji: String?, color: String?, unit: String?) -> [FieldError] {
        [TextRules.optionalLabelError(emoji, field: "emoji", maxLength: 16),
         TextRules.optionalLabelError(color, field: "color", maxLength: 32),
         TextRules.optionalLabelError(unit, field: "unit", maxLength: 32)].compactMap { $0 }
    }
}
