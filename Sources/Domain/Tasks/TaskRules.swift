import Foundation

/// How a task repeats: every `interval` days, weeks or months, anchored to the first due date.
public struct TaskRepeat: Sendable, Equatable, Codable {
    public enum Unit: String, Sendable, Codable { case day, week, month }
    public var every: Unit
    public var interval: Int

    public init(every: Unit, interval: Int = 1) {
        self.every = every
        self.interval = interval
    }

    enum CodingKeys: String, CodingKey { case every, interval }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        every = try container.decode(Unit.self, forKey: .every)
        interval = try container.decodeIfPresent(Int.self, forKey: .interval) ?? 1
    }

    /// The due date of occurrence `k` (0 = the anchor). Always computed from the anchor, never
    /// chained: a monthly task due Jan 31 is due Feb 28/29, Mar 31, Apr 30.
    public func dueDate(anchor: LocalDate, occurrence k: Int) -> LocalDate {
        switch every {
        case .day: anchor.adding(days: k * interval)
        case .week: anchor.adding(days: 7 * k * interval)
        case .month: anchor.addingMonths(k * interval, anchorDay: anchor.day)
        }
    }

    /// The occurrence that follows `occurrence` once it is done: the next on the anchored
    /// schedule, skipping any that a moved due date has already passed, so the next one is
    /// never due on or before the one just completed.
    public func next(anchor: LocalDate, after occurrence: Int, currentDue: LocalDate?) -> (occurrence: Int, due: LocalDate) {
        var k = occurrence + 1
        while let currentDue, dueDate(anchor: anchor, occurrence: k) <= currentDue { k += 1 }
        return (k, dueDate(anchor: anchor, occurrence: k))
    }
}

public enum TaskRules {
    /// Not completed and due before the logical today, or due at a date and time already past.
    /// The time is compared with the real local date and time, not the logical day: at 02:30
    /// with `day_start_hour` 4, a task due at 22:00 on the logical today is hours late.
    public static func isOverdue(completed: Bool, dueDate: LocalDate?, dueTime: LocalTime?, today: LocalDate,
                                 nowDate: LocalDate, nowTime: LocalTime) -> Bool {
        guard !completed, let dueDate else { return false }
        if dueDate < today { return true }
        if let dueTime { return (dueDate, dueTime.hour, dueTime.minute) <= (nowDate, nowTime.hour, nowTime.minute) }
        return false
    }

    public static func validationErrors(title: String?, priority: Int?, recurrence: TaskRepeat?, hasDueDate: Bool) -> [FieldError] {
        var errors: [FieldError] = []
        if let title, let error = TextRules.labelError(title.trimmingCharacters(in: .whitespacesAndNewlines), field: "title", maxLength: 200) {
            errors.append(error)
        }
        if let priority, !(1...3).contains(priority) { errors.append(FieldError("priority", "must be 1 (low), 2 or 3 (high)")) }
        if let recurrence {
            if recurrence.interval < 1 || recurrence.interval > 365 { errors.append(FieldError("repeat.interval", "must be from 1 to 365")) }
            if !hasDueDate { errors.append(FieldError("repeat", "a repeating task needs a due_date to anchor it")) }
        }
        return errors
    }
}

/// Events of a task series' stream (`task-<series uuid>`): a repeating task's occurrences share
/// one stream, so completing one and creating the next is a single atomic append.
