import Foundation

/// The user's calendar settings, for their logical today (DESIGN §4).
public struct UserCalendar: Sendable, Equatable {
    public var timeZone: TimeZone
    public var dayStartHour: Int
    public var weekStart: Int

    public init(timeZone: TimeZone, dayStartHour: Int, weekStart: Int) {
        self.timeZone = timeZone
        self.dayStartHour = dayStartHour
        self.weekStart = weekStart
    }

    public func today(at instant: Date) -> LocalDate {
        LogicalDay.date(of: instant, in: timeZone, dayStartHour: dayStartHour)
    }

    /// The calendar date of `instant` in the user's zone, whatever their day start.
    public func wallDate(at instant: Date) -> LocalDate {
        LogicalDay.date(of: instant, in: timeZone, dayStartHour: 0)
    }

    /// The local time of day of `instant` in the user's zone.
    public func timeOfDay(at instant: Date) -> LocalTime {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = timeZone
        let parts = gregorian.dateComponents([.hour, .minute], from: instant)
        return LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0)
    }

    /// What a decision at `instant` may know of now.
    public func decisionTime(at instant: Date) -> DecisionTime {
        DecisionTime(instant: instant, today: today(at: instant))
    }
}
