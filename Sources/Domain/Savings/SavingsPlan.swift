import Foundation

/// The day of the month a plan's occurrences fall on: 1–31 (a day past the month's end falls on
/// its last day) or the last day. JSON: `31` or `"last"`.
public enum SavingsAnchorDay: Sendable, Hashable, Codable, CustomStringConvertible {
    case day(Int)
    case last

    /// The due date in `month`: `min(anchor_day, days_in_month)`.
    public func date(in month: LocalMonth) -> LocalDate {
        switch self {
        case .day(let day): month.day(day)
        case .last: month.lastDay
        }
    }

    /// "1"…"31" or "last", as the read model stores it.
    public var description: String {
        switch self {
        case .day(let day): String(day)
        case .last: "last"
        }
    }

    public init?(_ text: String) {
        if text == "last" { self = .last } else if let day = Int(text), (1...31).contains(day) { self = .day(day) } else { return nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let day = try? container.decode(Int.self) {
            self = .day(day)
        } else if try container.decode(String.self) == "last" {
            self = .last
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a day 1–31 or \"last\""))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .day(let day): try container.encode(day)
        case .last: try container.encode("last")
        }
    }
}

/// One version of a goal's recurring plan: `amount` (minor units of the goal's currency) due on
/// the anchor day every `everyMonths` months from `startMonth`, through `endMonth` when set.
public struct SavingsPlan: Sendable, Hashable, Codable {
    public var amount: Int64
    public var anchorDay: SavingsAnchorDay
    public var everyMonths: Int
    public var startMonth: LocalMonth
    public var endMonth: LocalMonth?

    public init(amount: Int64, anchorDay: SavingsAnchorDay, everyMonths: Int, startMonth: LocalMonth, endMonth: LocalMonth? = nil) {
        self.amount = amount
        self.anchorDay = anchorDay
        self.everyMonths = everyMonths
        self.startMonth = startMonth
        self.endMonth = endMonth
    }

    /// Whether occurrence k of this plan falls in `month`: `startMonth + k·everyMonths`, k ≥ 0.
    func hasOccurrence(in month: LocalMonth) -> Bool {
        let k = startMonth.months(until: month)
        return k >= 0 && k % everyMonths == 0 && endMonth.map { month <= $0 } ?? true
    }
}

/// A change of a goal's plan, in the order they were made: a new version that applies from its
/// start month on, or the end of the plan (nothing due after `after`).
public enum SavingsPlanChange: Sendable, Hashable {
    case set(SavingsPlan)
    case ended(after: LocalDate)
}
