import Foundation

/// A calendar date with no time and no zone: the date a log counts for, a due date.
/// Arithmetic is on days since 1970-01-01 (proleptic Gregorian), so it never meets DST.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), (1...Self.daysIn(year: year, month: month)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// `YYYY-MM-DD`, digits only, years 0001 to 9999 (PostgreSQL has no year 0).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
              let y = Int(parts[0]), y >= 1, let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The dates a client may send (issue 24): every calendar, score window and read model
    /// computes within them, and PostgreSQL can store any date they reach (a window of 90 days
    /// before year 1 cannot). Stored events are read with `init(_:)`, whatever their date.
    public static let accepted = LocalDate(daysSinceEpoch: -25_567)...LocalDate(daysSinceEpoch: 84_005)  // 1900-01-01...2199-12-31
    /// What a client is told when a date is not one of `accepted`.
    public static let inputRule = "must be a date as YYYY-MM-DD, from 1900-01-01 to 2199-12-31"

    /// A date sent by a client: `YYYY-MM-DD` within `accepted`, nil otherwise.
    public init?(input text: String) {
        guard let date = LocalDate(text), Self.accepted.contains(date) else { return nil }
        self = date
    }

    /// The date of `instant` in UTC: for decisions that have no user's calendar (an account's own).
    public static func utc(of instant: Date) -> LocalDate {
        LocalDate(daysSinceEpoch: Int((instant.timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    public init(daysSinceEpoch days: Int) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        month = m
        day = d
    }

    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    public func days(until other: LocalDate) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// ISO weekday: 1 = Monday … 7 = Sunday (1970-01-01 was a Thursday).
    public var weekday: Int { ((daysSinceEpoch % 7 + 7) % 7 + 3) % 7 + 1 }

    /// The first day of the week containing this date, for a week starting on `weekStart`.
    public func startOfWeek(weekStart: Int) -> LocalDate { adding(days: -((weekday - weekStart + 7) % 7)) }

    public var daysInMonth: Int { Self.daysIn(year: year, month: month) }

    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The same day `months` later, clamped to the target month's last day (Jan 31 + 1 → Feb 28/29).
    public func addingMonths(_ months: Int, anchorDay: Int? = nil) -> LocalDate {
        let index = year * 12 + (month - 1) + months
        let (y, m) = (index / 12, index % 12 + 1)
        let wanted = anchorDay ?? day
        return LocalDate(year: y, month: m, day: min(wanted, Self.daysIn(year: y, month: m))) ?? self
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    public var description: String { String(zeroPadded: year, width: 4) + "-" + String(zeroPadded: month, width: 2) + "-" + String(zeroPadded: day, width: 2) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = LocalDate(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date as YYYY-MM-DD"))
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The user's day: the local date of an instant in their zone, with the day starting at
/// `dayStartHour` local time (a log at 02:00 with day start 4 counts for the day before).
public enum LogicalDay {
    public static func date(of instant: Date, in timeZone: TimeZone, dayStartHour: Int) -> LocalDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour], from: instant)
        guard let year = parts.year, let month = parts.month, let day = parts.day,
              let date = LocalDate(year: year, month: month, day: day) else {
            return LocalDate(daysSinceEpoch: Int((instant.timeIntervalSince1970 / 86_400).rounded(.down)))
        }
        return (parts.hour ?? 0) < dayStartHour ? date.adding(days: -1) : date
    }
}
