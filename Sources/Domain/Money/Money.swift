import Foundation

/// An exact amount: integer minor units of one currency. Never floating point, and never added
/// to an amount of another currency (there is no exchange-rate source).
public struct Money: Sendable, Hashable, Codable, CustomStringConvertible {
    public var minorUnits: Int64
    public var currency: Currency

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    /// The amount with exactly the currency's digits: "12.30", "1500" (JPY), "-4.250" (KWD).
    public var description: String { Self.format(minorUnits, digits: currency.minorDigits) }

    public static func format(_ minorUnits: Int64, digits: Int) -> String {
        let magnitude = String(minorUnits.magnitude)
        let sign = minorUnits < 0 ? "-" : ""
        guard digits > 0 else { return sign + magnitude }
        let padded = String(repeating: "0", count: max(0, digits + 1 - magnitude.count)) + magnitude
        return sign + padded.dropLast(digits) + "." + padded.suffix(digits)
    }

    /// Parses an amount as the API sends it: a string of digits with at most the currency's
    /// fraction digits, positive (the kind says the direction), at most 12 integer digits. No
    /// sign, exponent, separator or spaces. The error names `field`.
    public static func parse(_ text: String, currency: Currency, field: String = "amount") throws(ValidationFailure) -> Money {
        let digits = currency.minorDigits
        func refuse(_ message: String) -> ValidationFailure { ValidationFailure(field, message) }
        guard !text.isEmpty else { throw refuse("must not be empty") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in part.utf8.allSatisfy { (48...57).contains($0) } }
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, parts.allSatisfy(isDigits), parts.count == 1 || !parts[1].isEmpty else {
            throw refuse("must be a decimal number as a string, such as \"12.50\", with no sign, exponent or separators")
        }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= digits else {
            throw refuse(digits == 0 ? "\(currency.code) has no minor unit: send whole numbers"
                                     : "\(currency.code) has at most \(digits) digits after the point")
        }
        let trimmedWhole = whole.drop { $0 == "0" }
        guard trimmedWhole.count <= 12 else { throw refuse("must have at most 12 digits before the point") }
        let paddedFraction = fraction + String(repeating: "0", count: digits - fraction.count)
        guard let units = Int64(trimmedWhole + paddedFraction == "" ? "0" : trimmedWhole + paddedFraction) else {
            throw refuse("is out of range")
        }
        guard units > 0 else { throw refuse("must be greater than zero") }
        return Money(minorUnits: units, currency: currency)
    }
}

/// Shares and percentages, as the API prints them: one decimal, rounded half to even
/// ("37.5", "-12.0"), computed on integers so no binary fraction creeps in.
public enum Percent {
    /// 100 · part / whole with one decimal; nil when `whole` is zero.
    public static func of(_ part: Int64, _ whole: Int64) -> String? {
        guard whole != 0 else { return nil }
        let negative = (part < 0) != (whole < 0) && part != 0
        let numerator = Int128(part.magnitude) * 1000
        let denominator = Int128(whole.magnitude)
        var tenths = numerator / denominator
        let remainder = numerator % denominator
        // Half to even: above half rounds up, exactly half rounds to the even tenth.
        if remainder * 2 > denominator || (remainder * 2 == denominator && tenths % 2 == 1) { tenths += 1 }
        let text = "\(tenths / 10).\(tenths % 10)"
        return negative && tenths != 0 ? "-" + text : text
    }
}
