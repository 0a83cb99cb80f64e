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
public enum TaskEvent {
    public static let streamType = "task"
    public static func streamId(_ seriesId: UUID) -> String { "task-\(seriesId.uuidString.lowercased())" }

    public struct Created: DomainEvent, Equatable {
        public static let type = "task.created"
        public var taskId: UUID
        public var seriesId: UUID
        public var title: String
        public var notes: String?
        public var priority: Int
        public var dueDate: LocalDate?
        public var dueTime: LocalTime?
        public var `repeat`: TaskRepeat?
        public var anchorDate: LocalDate?
        public var occurrence: Int
        public init(taskId: UUID, seriesId: UUID, title: String, notes: String?, priority: Int, dueDate: LocalDate?,
                    dueTime: LocalTime?, repeat: TaskRepeat?, anchorDate: LocalDate?, occurrence: Int) {
            self.taskId = taskId
            self.seriesId = seriesId
            self.title = title
            self.notes = notes
            self.priority = priority
            self.dueDate = dueDate
            self.dueTime = dueTime
            self.repeat = `repeat`
            self.anchorDate = anchorDate
            self.occurrence = occurrence
        }
    }

    /// The task's fields after the change, whole.
    public struct Changed: DomainEvent, Equatable {
        public static let type = "task.changed"
        public var taskId: UUID
        public var title: String
        public var notes: String?
        public var priority: Int
        public var dueDate: LocalDate?
        public var dueTime: LocalTime?
        /// A repeating task's first occurrence moved: the series counts from here now. Nil
        /// (and absent in older events) leaves the anchor as it was.
        public var anchorDate: LocalDate?
        public init(taskId: UUID, title: String, notes: String?, priority: Int, dueDate: LocalDate?, dueTime: LocalTime?,
                    anchorDate: LocalDate? = nil) {
            self.taskId = taskId
            self.anchorDate = anchorDate
            self.title = title
            self.notes = notes
            self.priority = priority
            self.dueDate = dueDate
            self.dueTime = dueTime
        }
    }

    public struct Completed: DomainEvent, Equatable {
        public static let type = "task.completed"
        public var taskId: UUID
        public var completedAt: Date
        /// The next occurrence this completion created (its `task.created` follows in the same append).
        public var nextTaskId: UUID?
        public init(taskId: UUID, completedAt: Date, nextTaskId: UUID?) {
            self.taskId = taskId
            self.completedAt = completedAt
            self.nextTaskId = nextTaskId
        }
    }

    public struct Uncompleted: DomainEvent, Equatable {
        public static let type = "task.uncompleted"
        public var taskId: UUID
        public init(taskId: UUID) { self.taskId = taskId }
    }

    public struct Deleted: DomainEvent, Equatable {
        public static let type = "task.deleted"
        public var taskId: UUID
        public init(taskId: UUID) { self.taskId = taskId }
    }

    public static let types = [Created.type, Changed.type, Completed.type, Uncompleted.type, Deleted.type]
}
