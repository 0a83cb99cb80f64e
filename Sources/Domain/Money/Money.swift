import Foundation

/// An exact amount: integer minor units of one currency. Never floating point, and never added
/// to an amount of another currency (there is no exchange-rate source).
///
/// One amount a client sends is at most 10^16 minor units (12 digits before the point, at most
/// 4 after: `parse`), and the database keeps it in `bigint`. Sums of amounts are not bounded by
/// that: a month's expenses or a user's overdue payments may pass `Int64.max` (9.2·10^18). So
/// `minorUnits` has 128 bits (±1.7·10^38), and every sum is exact. It cannot overflow: a
/// PostgreSQL table holds at most 32 TB, fewer than 10^12 rows of amounts, so a sum of stored
/// amounts stays below 10^28, and a share of it computed on 1,000 times that below 10^31.
public struct Money: Sendable, Hashable, CustomStringConvertible {
    public var minorUnits: Int128
    public var currency: Currency

    /// From minor units of any signed width up to 128 bits (a stored amount's `Int64`, a sum's `Int128`).
    public init(minorUnits: some SignedInteger & FixedWidthInteger, currency: Currency) {
        self.minorUnits = Int128(minorUnits)
        self.currency = currency
    }

    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    /// The amount with exactly the currency's digits: "12.30", "1500" (JPY), "-4.250" (KWD).
    public var description: String { Self.format(minorUnits, digits: currency.minorDigits) }

    public static func format(_ minorUnits: some SignedInteger & FixedWidthInteger, digits: Int) -> String {
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
        Money(minorUnits: try parseMinorUnits(text, currency: currency, field: field), currency: currency)
    }

    /// `parse`, answering the minor units as an event and the database keep one amount: at most
    /// 10^16, so an `Int64`.
    public static func parseMinorUnits(_ text: String, currency: Currency, field: String = "amount") throws(ValidationFailure) -> Int64 {
        try DecimalAmount(text, field: field).minorUnits(in: currency, field: field)
    }
}

extension Sequence where Element: SignedInteger & FixedWidthInteger {
    /// The exact sum of amounts in minor units, in 128 bits (see `Money`): never clamped.
    public var exactSum: Int128 { reduce(0) { $0 + Int128($1) } }
}

/// Shares and percentages, as the API prints them: one decimal, rounded half to even
/// ("37.5", "-12.0"), computed on integers so no binary fraction creeps in.
public enum Percent {
    /// 100 · part / whole with one decimal; nil when `whole` is zero. Exact for any sums of
    /// amounts (`Money` says why they stay far below the limit of 128 bits).
    public static func of(_ part: some SignedInteger & FixedWidthInteger, _ whole: some SignedInteger & FixedWidthInteger) -> String? {
        guard whole != 0 else { return nil }
        let negative = (part < 0) != (whole < 0) && part != 0
        let numerator = UInt128(part.magnitude) * 1000
        let denominator = UInt128(whole.magnitude)
        var tenths = numerator / denominator
        let remainder = numerator % denominator
        // Half to even: above half rounds up, exactly half rounds to the even tenth.
        if remainder * 2 > denominator || (remainder * 2 == denominator && tenths % 2 == 1) { tenths += 1 }
        let text = "\(tenths / 10).\(tenths % 10)"
        return negative && tenths != 0 ? "-" + text : text
    }
}
