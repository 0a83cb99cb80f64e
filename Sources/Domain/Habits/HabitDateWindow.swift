/// The dates a habit's calendar may reach, relative to the user's logical today. Every read
/// walks the calendar from the habit's start to the day asked about, so an unbounded start
/// date or query date would let one request cost minutes of CPU.
public struct HabitDateWindow: Sendable, Equatable {
    /// Ten years of history: enough to import a long-kept habit from another app.
    public static let yearsBack = 10
    /// A year ahead: enough to plan, not enough to make a read expensive.
    public static let daysAhead = 366

    public let earliest: LocalDate
    public let latest: LocalDate

    public init(today: LocalDate) {
        earliest = LocalDate(year: today.year - Self.yearsBack, month: 1, day: 1) ?? today
        latest = today.adding(days: Self.daysAhead)
    }

    public func contains(_ date: LocalDate) -> Bool { earliest <= date && date <= latest }

    /// A validation error for `field` when `date` is past the window's end. Reads and schedule
    /// changes only walk up to their date, so only the future side costs anything.
    public func checkNotAfter(_ date: LocalDate, field: String) -> FieldError? {
        date > latest ? FieldError(field, "must be on or before \(latest), a year from today") : nil
    }

    /// A validation error for `field` when `date` is outside the window.
    public func check(_ date: LocalDate, field: String) -> FieldError? {
        if date < earliest { return FieldError(field, "must be on or after \(earliest)") }
        if date > latest { return FieldError(field, "must be on or before \(latest), a year from today") }
        return nil
    }
}
