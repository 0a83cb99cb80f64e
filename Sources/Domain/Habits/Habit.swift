import Foundation

/// A habit as its rules see it: what `HabitDecider` decides from. Built by folding the habit's
/// events (`HabitDecider.evolve`), or loaded from the read model with the stream's version.
public struct Habit: Sendable, Equatable {
    public struct Freeze: Sendable, Equatable {
        public var from: LocalDate
        public var to: LocalDate
        public var reason: String?
        public init(from: LocalDate, to: LocalDate, reason: String?) {
            self.from = from
            self.to = to
            self.reason = reason
        }
    }

    public var id: UUID
    public var name: String
    public var emoji: String?
    public var color: String?
    public var kind: HabitEvent.Kind
    public var target: Decimal?
    public var unit: String?
    public var reminderTime: LocalTime?
    public var startDate: LocalDate
    /// Schedules in force, each from its date on, oldest first.
    public var schedules: [HabitFacts.ScheduleChange]
    public var archived: Bool
    /// The dates that have a log; loaded from the read model, only those a command looks at.
    public var loggedDates: Set<LocalDate>
    public var freezes: [UUID: Freeze]

    public init(id: UUID, name: String, emoji: String? = nil, color: String? = nil, kind: HabitEvent.Kind, target: Decimal? = nil,
                unit: String? = nil, reminderTime: LocalTime? = nil, startDate: LocalDate, schedules: [HabitFacts.ScheduleChange],
                archived: Bool = false, loggedDates: Set<LocalDate> = [], freezes: [UUID: Freeze] = [:]) {
        self.id = id
        self.name = name
        self.emoji = emoji
        self.color = color
        self.kind = kind
        self.target = target
        self.unit = unit
        self.reminderTime = reminderTime
        self.startDate = startDate
        self.schedules = schedules
        self.archived = archived
        self.loggedDates = loggedDates
        self.freezes = freezes
    }

    /// A habit as its creation leaves it.
    public init(_ created: HabitEvent.Created) {
        self.init(id: created.habitId, name: created.name, emoji: created.emoji, color: created.color, kind: created.kind,
                  target: created.target, unit: created.unit, reminderTime: created.reminderTime, startDate: created.startDate,
                  schedules: [.init(from: created.startDate, schedule: created.schedule)])
    }

    /// The schedule in force on `date`.
    public func schedule(on date: LocalDate) -> HabitSchedule? {
        (schedules.last { $0.from <= date } ?? schedules.first)?.schedule
    }

    /// `schedules` after a change that applies from `from` on: whatever was planned from that
    /// date is replaced.
    public static func replacing(_ schedules: [HabitFacts.ScheduleChange], from: LocalDate, with schedule: HabitSchedule) -> [HabitFacts.ScheduleChange] {
        schedules.filter { $0.from < from } + [.init(from: from, schedule: schedule)]
    }
}
