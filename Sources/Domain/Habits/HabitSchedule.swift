/// When a habit is due (DESIGN §4, Habits).
public enum HabitSchedule: Sendable, Equatable, Codable {
    case daily
    /// ISO weekdays, 1 = Monday.
    case weekdays(Set<Int>)
    /// N distinct days in each calendar week.
    case timesPerWeek(Int)
    /// Every N days, counted from the start date.
    case everyNDays(Int)
    /// A day of the month; a day past the month's end falls on its last day.
    case monthly(MonthDay)

    public enum MonthDay: Sendable, Equatable {
        case day(Int)
        case last
    }

    public var isWeekly: Bool {
        if case .timesPerWeek = self { return true }
        return false
    }

    /// Whether `date` is a scheduled day (not meaningful for `timesPerWeek`, whose period is a week).
    public func isScheduled(_ date: LocalDate, start: LocalDate) -> Bool {
        guard date >= start else { return false }
        switch self {
        case .daily, .timesPerWeek: return true
        case .weekdays(let days): return days.contains(date.weekday)
        case .everyNDays(let n): return start.days(until: date) % n == 0
        case .monthly(.last): return date.day == date.daysInMonth
        case .monthly(.day(let wanted)): return date.day == min(wanted, date.daysInMonth)
        }
    }

    public func validationErrors(field: String = "schedule") -> [FieldError] {
        switch self {
        case .daily: return []
        case .weekdays(let days):
            return days.isEmpty || !days.allSatisfy({ (1...7).contains($0) }) ? [FieldError("\(field).days", "must be ISO weekdays 1 (Monday) to 7, at least one")] : []
        case .timesPerWeek(let n):
            return (1...7).contains(n) ? [] : [FieldError("\(field).count", "must be from 1 to 7")]
        case .everyNDays(let n):
            return (2...365).contains(n) ? [] : [FieldError("\(field).n", "must be from 2 to 365")]
        case .monthly(.day(let day)):
            return (1...31).contains(day) ? [] : [FieldError("\(field).day", "must be from 1 to 31 or \"last\"")]
        case .monthly(.last): return []
        }
    }

    // JSON: {"type":"daily"} | {"type":"weekdays","days":[1,3,5]} | {"type":"times_per_week","count":3}
    //       | {"type":"every_n_days","n":2} | {"type":"monthly","day":31} | {"type":"monthly","day":"last"}
    enum CodingKeys: String, CodingKey { case type, days, count, n, day }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "daily": self = .daily
        case "weekdays": self = .weekdays(Set(try container.decode([Int].self, forKey: .days)))
        case "times_per_week": self = .timesPerWeek(try container.decode(Int.self, forKey: .count))
        case "every_n_days": self = .everyNDays(try container.decode(Int.self, forKey: .n))
        case "monthly":
            if let day = try? container.decode(Int.self, forKey: .day) { self = .monthly(.day(day)) }
            else if try container.decode(String.self, forKey: .day) == "last" { self = .monthly(.last) }
            else { throw DecodingError.dataCorruptedError(forKey: .day, in: container, debugDescription: "a day 1–31 or \"last\"") }
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container,
                debugDescription: "one of daily, weekdays, times_per_week, every_n_days, monthly")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .daily: try container.encode("daily", forKey: .type)
        case .weekdays(let days):
            try container.encode("weekdays", forKey: .type)
            try container.encode(days.sorted(), forKey: .days)
        case .timesPerWeek(let n):
            try container.encode("times_per_week", forKey: .type)
            try container.encode(n, forKey: .count)
        case .everyNDays(let n):
            try container.encode("every_n_days", forKey: .type)
            try container.encode(n, forKey: .n)
        case .monthly(.day(let day)):
            try container.encode("monthly", forKey: .type)
            try container.encode(day, forKey: .day)
        case .monthly(.last):
            try container.encode("monthly", forKey: .type)
            try container.encode("last", forKey: .day)
        }
    }
}
