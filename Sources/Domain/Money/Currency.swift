import Foundation

/// An ISO 4217 currency and how many minor digits its amounts have. The one table of digits.
public struct Currency: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let code: String

    /// Nil for anything but an active ISO 4217 code in capitals ("EUR", not "eur" or "EURO").
    public init?(_ code: String) {
        guard Currencies.isValid(code) else { return nil }
        self.code = code
    }

    /// Digits after the decimal point: JPY 0, EUR and USD 2, KWD and BHD 3 (ISO 4217's table).
    public var minorDigits: Int { Self.minorDigitsByCode[code] ?? 2 }

    /// The codes whose digits are not 2, with theirs (for SQL that formats stored amounts).
    public static var minorDigitsTable: [String: Int] { minorDigitsByCode }

    /// 10^minorDigits: minor units in one major unit.
    public var minorPerMajor: Int64 {
        var value: Int64 = 1
        for _ in 0..<minorDigits { value *= 10 }
        return value
    }

    public var description: String { code }
    public static func < (lhs: Currency, rhs: Currency) -> Bool { lhs.code < rhs.code }

    /// Every currency whose minor unit is not 2 digits (ISO 4217, amendment 176).
    static let minorDigitsByCode: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0,
        "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    public init(from decoder: any Decoder) throws {
        let code = try decoder.singleValueContainer().decode(String.self)
        guard let currency = Currency(code) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 4217 code"))
        }
        self = currency
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}
