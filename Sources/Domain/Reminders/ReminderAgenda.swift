import Foundation

/// What the planner needs to know of a user: settings, and what is on (habits per day, open
/// tasks, savings occurrences), loaded at planning time.
public struct ReminderUser: Sendable, Equatable {
    public var userId: UUID
    public var language: Language
    public var zones: ZoneHistory
    public var morning: LocalTime
    public var evening: LocalTime
    public var kinds: Set<ReminderKind>

    public init(userId: UUID, language: Language, zones: ZoneHistory, morning: LocalTime, evening: LocalTime, kinds: Set<ReminderKind>) {
        self.userId = userId
        self.language = language
        self.zones = zones
        self.morning = morning
        self.evening = evening
        self.kinds = kinds
    }
}

public struct ReminderAgenda: Sendable, Equatable {
    /// A habit on one day: scheduled that day, and whether it is done.
    public struct HabitDay: Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var completed: Bool
        public var reminderTime: LocalTime?
        public init(id: UUID, name: String, completed: Bool, reminderTime: LocalTime?) {
            self.id = id
            self.name = name
            self.completed = completed
            self.reminderTime = reminderTime
        }
    }

    /// An open (not completed) task with a due date.
    public struct OpenTask: Sendable, Equatable {
        public var id: UUID
        public var title: String
        public var dueDate: LocalDate
        public var dueTime: LocalTime?
        public init(id: UUID, title: String, dueDate: LocalDate, dueTime: LocalTime?) {
            self.id = id
            self.title = title
            self.dueDate = dueDate
            self.dueTime = dueTime
        }
    }

    /// A savings plan occurrence unpaid as of planning, of a goal the user owns or shares.
    public struct Payment: Sendable, Equatable {
        public var goalId: UUID
        public var goalName: String
        public var dueDate: LocalDate
        public var remaining: Money
        /// False for a shared goal the user is a member of.
        public var owned: Bool
        public init(goalId: UUID, goalName: String, dueDate: LocalDate, remaining: Money, owned: Bool = true) {
            self.goalId = goalId
            self.goalName = goalName
            self.dueDate = dueDate
            self.remaining = remaining
            self.owned = owned
        }
    }

    /// Habits scheduled on each date (a date missing here has none).
    public var habits: [LocalDate: [HabitDay]]
    public var tasks: [OpenTask]
    public var payments: [Payment]

    public init(habits: [LocalDate: [HabitDay]] = [:], tasks: [OpenTask] = [], payments: [Payment] = []) {
        self.habits = habits
        self.tasks = tasks
        self.payments = payments
    }
}
