/// An amount as a client writes it ("12.50"): an exact, positive decimal whose text is read, but
/// which is not yet held to a currency's digits. The edge reads it (`init(_:field:)`); where the
/// currency is known only from the state (the user's, a stored transaction's or goal's), the
/// decider scales it (`minorUnits(in:)`). Never floating point.
public struct DecimalAmount: Sendable, Hashable, CustomStringConvertible {
    /// The digits before the point, leading zeros dropped (empty for "0.50").
    let whole: String
    /// The digits after the point, as written ("50" in "12.50", "" for "12").
    let fraction: String

    /// Digits with at most one point, a digit on each side of it: no sign, exponent, separator or
    /// spaces. The error names `field`.
    public init(_ text: String, field: String = "amount") throws(ValidationFailure) {
        guard !text.isEmpty else { throw ValidationFailure(field, "must not be empty") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in part.utf8.allSatisfy { (48...57).contains($0) } }
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, parts.allSatisfy(isDigits), parts.count == 1 || !parts[1].isEmpty else {
            throw ValidationFailure(field, "must be a decimal number as a string, such as \"12.50\", with no sign, exponent or separators")
        }
        self.whole = String(whole.drop { $0 == "0" })
        fraction = parts.count == 2 ? String(parts[1]) : ""
    }

    /// A stored amount, written as its currency writes it ("12.50" in EUR): what a change that
    /// sends a new currency and no amount holds to the new currency's digits.
    public init(_ money: Money) {
        let parts = money.description.split(separator: ".", omittingEmptySubsequences: false)
        whole = String((parts.first ?? "").drop { $0 == "0" || $0 == "-" })
        fraction = parts.count == 2 ? String(parts[1]) : ""
    }

    public var description: String { (whole.isEmpty ? "0" : whole) + (fraction.isEmpty ? "" : "." + fraction) }

    /// The amount in minor units of `currency`: at most its digits after the point, at most 12
    /// before it (so at most 10^16, an `Int64` as events and the database keep it), above zero.
    public func minorUnits(in currency: Currency, field: String = "amount") throws(ValidationFailure) -> Int64 {
        let digits = currency.minorDigits
        guard fraction.count <= digits else {
            throw ValidationFailure(field, digits == 0 ? "\(currency.code) has no minor unit: send whole numbers"
                                                       : "\(currency.code) has at most \(digits) digits after the point")
        }
        guard whole.count <= 12 else { throw ValidationFailure(field, "must have at most 12 digits before the point") }
        let units = whole + fraction + String(repeating: "0", count: digits - fraction.count)
        guard let minor = Int64(units.isEmpty ? "0" : units) else { throw ValidationFailure(field, "is out of range") }
        guard minor > 0 else { throw ValidationFailure(field, "must be greater than zero") }
        return minor
    }
}
