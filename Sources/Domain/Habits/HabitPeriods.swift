import Foundation

/// One period a habit is judged on: a scheduled day, or a week for `times_per_week`.
public struct HabitPeriod: Sendable, Equatable {
    public enum Status: String, Sendable, Codable {
        case satisfied, excused, missed, pending
        case notScheduled = "not_scheduled"
    }

    public var start: LocalDate
    public var end: LocalDate
    public var status: Status
    public var done: Int
    public var target: Int
}

/// The derived state a client renders without computing anything.
public struct HabitState: Sendable, Equatable {
    public struct Progress: Sendable, Equatable {
        public var done: Int
        public var target: Int
        public var start: LocalDate
        public var end: LocalDate
        public init(done: Int, target: Int, start: LocalDate, end: LocalDate) {
            self.done = done
            self.target = target
            self.start = start
            self.end = end
        }
    }

    public var dueToday: Bool
    public var completedToday: Bool
    public var todayValue: Decimal?
    public var periodProgress: Progress?
    public var currentStreak: Int
    public var bestStreak: Int
    /// Satisfied ÷ (satisfied + missed) over periods starting in the last 30 days; nil if none.
    public var completionRate30d: Double?
    public var nextDueDate: LocalDate?
}

public enum HabitCalculator {
    /// Every period from the start through `today`, in order. The period holding today is
    /// `pending` unless already satisfied; excused periods are the frozen ones.
    public static func periods(_ facts: HabitFacts, through today: LocalDate) -> [HabitPeriod] {
        periods(facts, through: today, index: facts.index(through: today.adding(days: 7)))
    }

    static func periods(_ facts: HabitFacts, through today: LocalDate, index: DayIndex) -> [HabitPeriod] {
        var periods: [HabitPeriod] = []
        var date = facts.start
        while date <= today {
            let change = facts.schedule(on: date)
            switch change.schedule {
            case .timesPerWeek(let count):
                let weekStart = date.startOfWeek(weekStart: facts.weekStart)
                // A schedule change mid-week ends this period early; the new schedule takes over.
                let weekEnd = facts.lastDayOfSchedule(from: date, notAfter: weekStart.adding(days: 6))
                let first = max(weekStart, facts.start, change.from)
                var done = 0
                var available = 0
                var day = first
                while day <= weekEnd {
                    if day <= today, index.isCompleted(day) { done += 1 }
                    if !index.isFrozen(day) { available += 1 }
                    day = day.adding(days: 1)
                }
                let status: HabitPeriod.Status =
                    done >= count ? .satisfied
                    : today <= weekEnd ? .pending
                    : available < count ? .excused
                    : .missed
                periods.append(HabitPeriod(start: first, end: weekEnd, status: status, done: done, target: count))
                date = weekEnd.adding(days: 1)
            case let schedule:
                if schedule.isScheduled(date, start: scheduleAnchor(facts, change)) {
                    let completed = index.isCompleted(date)
                    let status: HabitPeriod.Status =
                        completed ? .satisfied
                        : index.isFrozen(date) ? .excused
                        : date == today ? .pending
                        : .missed
                    periods.append(HabitPeriod(start: date, end: date, status: status, done: completed ? 1 : 0, target: 1))
                }
                date = date.adding(days: 1)
            }
        }
        return periods
    }

    /// `every_n_days` counts from the habit's start, even after a schedule change.
    static func scheduleAnchor(_ facts: HabitFacts, _ change: HabitFacts.ScheduleChange) -> LocalDate {
        if case .everyNDays = change.schedule { return facts.start }
        return change.from
    }

    public static func state(_ facts: HabitFacts, today: LocalDate) -> HabitState {
        let index = facts.index(through: today.adding(days: 400))
        let periods = periods(facts, through: today, index: index)
        let (current, best) = streaks(periods)
        let window = today.adding(days: -29)
        let recent = periods.filter { $0.start >= window || $0.end >= window }
        let satisfied = recent.filter { $0.status == .satisfied }.count
        let judged = satisfied + recent.filter { $0.status == .missed }.count
        let rate = judged == 0 ? nil : (Double(satisfied) / Double(judged) * 1000).rounded() / 1000

        let change = facts.schedule(on: today)
        let completedToday = index.isCompleted(today)
        var dueToday = false
        var progress: HabitState.Progress?
        if today >= facts.start {
            if case .timesPerWeek = change.schedule, let week = periods.last {
                progress = .init(done: week.done, target: week.target, start: week.start, end: week.end)
                dueToday = week.status != .satisfied && !completedToday && !index.isFrozen(today)
            } else {
                dueToday = periods.last?.start == today && periods.last?.status == .pending
            }
        }
        return HabitState(
            dueToday: dueToday, completedToday: completedToday, todayValue: facts.target == nil ? nil : (facts.values[today] ?? 0),
            periodProgress: progress, currentStreak: current, bestStreak: best, completionRate30d: rate,
            nextDueDate: nextDueDate(facts, today: today, index: index))
    }

    /// Consecutive satisfied periods back from the latest closed one (plus the current one if
    /// already satisfied); a pending period does not break it; excused ones neither add nor break.
    public static func streaks(_ periods: [HabitPeriod]) -> (current: Int, best: Int) {
        var current = 0
        for period in periods.reversed() {
            if period.status == .missed { break }
            if period.status == .satisfied { current += 1 }
        }
        var best = 0
        var run = 0
        for period in periods {
            switch period.status {
            case .satisfied:
                run += 1
                best = max(best, run)
            case .missed: run = 0
            case .excused, .pending, .notScheduled: break
            }
        }
        return (current, best)
    }

    /// The first day from today on that still needs doing.
    static func nextDueDate(_ facts: HabitFacts, today: LocalDate, index: DayIndex) -> LocalDate? {
        var date = max(today, facts.start)
        for _ in 0..<400 {
            let change = facts.schedule(on: date)
            if case .timesPerWeek(let count) = change.schedule {
                // Only this schedule's part of the week counts: logs from before a change do not.
                let weekStart = date.startOfWeek(weekStart: facts.weekStart)
                var done = 0
                var day = max(weekStart, facts.start, change.from)
                while day < date { if index.isCompleted(day) { done += 1 }; day = day.adding(days: 1) }
                if done < count, !index.isCompleted(date), !index.isFrozen(date) { return date }
                if done >= count {
                    date = facts.lastDayOfSchedule(from: date, notAfter: weekStart.adding(days: 6)).adding(days: 1)
                    continue
                }
            } else if change.schedule.isScheduled(date, start: scheduleAnchor(facts, change)),
                      !index.isCompleted(date), !index.isFrozen(date) {
                return date
            }
            date = date.adding(days: 1)
        }
        return nil
    }
}
