import Foundation

/// A calendar month with no zone (`YYYY-MM`): a budget's first month, a savings plan's start.
/// A transaction dated the 31st belongs to its month whatever the user's zone.
public struct LocalMonth: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int

    public init?(year: Int, month: Int) {
        guard (1...9999).contains(year), (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
    }

    public init(_ date: LocalDate) {
        year = date.year
        month = date.month
    }

    /// `YYYY-MM`, digits only.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let y = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        self.init(year: y, month: m)
    }

    /// Months since year 0, for arithmetic.
    public var index: Int { year * 12 + month - 1 }

    public init(index: Int) {
        year = index / 12
        month = index % 12 + 1
    }

    public func adding(months: Int) -> LocalMonth { LocalMonth(index: index + months) }

    public func months(until other: LocalMonth) -> Int { other.index - index }

    public var firstDay: LocalDate { LocalDate(daysSinceEpoch: 0).replacing(year: year, month: month, day: 1) }
    public var lastDay: LocalDate { firstDay.replacing(year: year, month: month, day: LocalDate.daysIn(year: year, month: month)) }
    public var days: Int { LocalDate.daysIn(year: year, month: month) }

    /// Day `day` of the month, or its last day when the month is shorter (31 → Feb 28/29).
    public func day(_ day: Int) -> LocalDate { firstDay.replacing(year: year, month: month, day: min(max(day, 1), days)) }

    public static func < (lhs: LocalMonth, rhs: LocalMonth) -> Bool { lhs.index < rhs.index }

    public var description: String { String(zeroPadded: year, width: 4) + "-" + String(zeroPadded: month, width: 2) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let month = LocalMonth(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a month as YYYY-MM"))
        }
        self = month
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension LocalDate {
    /// The date with these parts, which the caller has checked exist; `self` otherwise.
    func replacing(year: Int, month: Int, day: Int) -> LocalDate { LocalDate(year: year, month: month, day: day) ?? self }

    public var localMonth: LocalMonth { LocalMonth(self) }
}
