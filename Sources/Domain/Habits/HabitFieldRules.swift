import Foundation

/// Rules for a habit's amounts and decorations, shared by create, change and log.
public enum HabitFieldRules {
    /// A day's value or a target: from a thousandth to a billion (steps, millilitres, pages and
    /// kilometres to the metre all fit), so sums stay exact and a slip of the keyboard is caught.
    /// The lower bound is one the document can state: "above 0" let a JSON number through that no
    /// Decimal holds (5e-324), refused with a message of its own.
    public static let minimumAmount: Decimal = Decimal(sign: .plus, exponent: -3, significand: 1)
    public static let maximumAmount: Decimal = 1_000_000_000

    public static func amountError(_ amount: Decimal, field: String) -> FieldError? {
        guard amount >= minimumAmount, amount <= maximumAmount else { return FieldError(field, "must be from \(minimumAmount) to \(maximumAmount)") }
        return nil
    }

    /// Emoji, colour and unit are short labels an app shows beside the name.
    public static func decorationErrors(emoji: String?, color: String?, unit: String?) -> [FieldError] {
        [TextRules.optionalLabelError(emoji, field: "emoji", maxLength: 16),
         TextRules.optionalLabelError(color, field: "color", maxLength: 32),
         TextRules.optionalLabelError(unit, field: "unit", maxLength: 32)].compactMap { $0 }
    }
}
