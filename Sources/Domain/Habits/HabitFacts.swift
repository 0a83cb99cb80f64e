import Foundation

/// What is stored about a habit: facts, never derived states. Everything a client reads
/// ("due today", streaks) is computed from these and the user's logical today.
public struct HabitFacts: Sendable, Equatable {
    public struct ScheduleChange: Sendable, Equatable {
        public var from: LocalDate
        public var schedule: HabitSchedule
        public init(from: LocalDate, schedule: HabitSchedule) {
            self.from = from
            self.schedule = schedule
        }
    }

    public var start: LocalDate
    /// Schedules in force, each from its effective date on; sorted, the first from `start`.
    public var schedules: [ScheduleChange]
    /// Numeric habits: the day's sum must reach it. Boolean habits: nil (any log completes).
    public var target: Decimal?
    /// The day's logged total per local date (boolean logs count 1).
    public var values: [LocalDate: Decimal]
    public var freezes: [ClosedRange<LocalDate>]
    /// ISO weekday weeks start on, for `times_per_week`.
    public var weekStart: Int

    public init(start: LocalDate, schedule: HabitSchedule, target: Decimal? = nil, values: [LocalDate: Decimal] = [:],
                freezes: [ClosedRange<LocalDate>] = [], weekStart: Int = 1) {
        self.start = start
        self.schedules = [ScheduleChange(from: start, schedule: schedule)]
        self.target = target
        self.values = values
        self.freezes = freezes
        self.weekStart = weekStart
    }

    public func schedule(on date: LocalDate) -> ScheduleChange {
        schedules.last { $0.from <= date } ?? schedules[0]
    }

    /// The last day `date`'s schedule is in force before the next change, if one is planned
    /// within `limit`; otherwise `limit`. A weekly period never runs past a schedule change.
    public func lastDayOfSchedule(from date: LocalDate, notAfter limit: LocalDate) -> LocalDate {
        guard let next = schedules.first(where: { $0.from > date }) else { return limit }
        return min(limit, next.from.adding(days: -1))
    }

    public func isCompleted(_ date: LocalDate) -> Bool {
        guard let value = values[date] else { return false }
        if let target { return value >= target }
        return value > 0
    }

    public func isFrozen(_ date: LocalDate) -> Bool {
        freezes.contains { $0.contains(date) }
    }

    /// Completed days and frozen days as day numbers, computed once per evaluation: two years of
    /// 30 habits is tens of thousands of look-ups, and Decimal comparisons are not free.
    func index(through last: LocalDate) -> DayIndex {
        var completed = Set<Int>(minimumCapacity: values.count)
        for (date, value) in values where target.map({ value >= $0 }) ?? (value > 0) {
            completed.insert(date.daysSinceEpoch)
        }
        var frozen = Set<Int>()
        let (low, high) = (start.daysSinceEpoch, last.daysSinceEpoch)
        for range in freezes {
            let from = max(range.lowerBound.daysSinceEpoch, low), to = min(range.upperBound.daysSinceEpoch, high)
            if from <= to { frozen.formUnion(from...to) }
        }
        return DayIndex(completed: completed, frozen: frozen)
    }
}

struct DayIndex {
    let completed: Set<Int>
    let frozen: Set<Int>
    func isCompleted(_ date: LocalDate) -> Bool { completed.contains(date.daysSinceEpoch) }
    func isFrozen(_ date: LocalDate) -> Bool { frozen.contains(date.daysSinceEpoch) }
}
