import Foundation

/// One line of lifelog's own export (`GET /api/v1/export`, format `lifelog-export`), read into
/// what an import does with it. Ids are the exporting account's: the import maps each to an id
/// of its own (and references with it), so a file can go into any account, and again.
/// Amounts stay the exact decimal strings the export wrote.
public enum LifelogImportLine: Sendable, Equatable {
    /// The first line: the format and its version.
    case header(version: Int)
    /// The last line, with the number of resource lines before it.
    case end(lines: Int)
    case profile(Profile)
    case reminderSettings(morningTime: String?, eveningTime: String?, enabledKinds: [String]?)
    case sourcePriority([HealthSourceKind])
    case habit(HabitLine)
    case habitLog(habitId: UUID, date: LocalDate, value: Decimal?)
    case freeze(id: UUID, habitId: UUID, Habit.Freeze)
    case task(TaskLine)
    case category(CategoryLine)
    case budget(BudgetLine)
    case transaction(TransactionLine)
    case savingsGoal(SavingsGoalLine)
    case plan(PlanLine)
    case savingsMovement(MovementLine)
    case healthSample(HealthIntake.Sample)
    case sleepSegment(HealthIntake.Sleep)
    case workout(HealthIntake.Workout)
    case manualValue(metric: HealthMetric, date: LocalDate, value: Double)
    case checkIn(date: LocalDate, feeling: Int, note: String?)
    /// A kind of line an import does not carry, and why (the same reason for every line of it).
    case notCarried(reason: String)

    /// Why a line cannot be read (`line N: reason` in the report).
    public struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// The exporting account's id and the settings that go with the account, not its email.
    public struct Profile: Sendable, Equatable {
        public var sourceId: UUID
        public var name: String?
        public var timezone: String?
        public var dayStartHour: Int?
        public var weekStart: Int?
        public var currency: String?
        public var language: String?
    }

    public struct HabitLine: Sendable, Equatable {
        public var id: UUID
        /// The habit as created, with the schedule it started with.
        public var definition: HabitDefinition
        /// Schedules that replaced it, each from its date on, oldest first.
        public var laterSchedules: [HabitFacts.ScheduleChange]
        public var archived: Bool
    }

    public struct TaskLine: Sendable, Equatable {
        public var id: UUID
        /// The series' first task: the same as `id` unless this is a repeat created by completing
        /// the one before it.
        public var seriesId: UUID
        public var definition: TaskDefinition
        public var completed: Bool
        /// The repeat the completion created.
        public var nextTaskId: UUID?
    }

    public struct CategoryLine: Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var emoji: String?
        public var kind: MoneyFlow
        public var color: String?
        public var archived: Bool
    }

    /// A budget step: from `fromMonth` on, `amount` a month (nil: the budget ends).
    public struct BudgetLine: Sendable, Equatable {
        public var categoryId: UUID
        public var fromMonth: LocalMonth
        public var amount: String?
        public var currency: String?
    }

    public struct TransactionLine: Sendable, Equatable {
        public var id: UUID
        public var kind: MoneyFlow
        public var amount: String
        public var currency: String
        public var categoryId: UUID?
        public var date: LocalDate
        public var note: String?
    }

    public struct SavingsGoalLine: Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var emoji: String?
        public var currency: String
        public var targetAmount: String?
        public var targetDate: LocalDate?
    }

    /// A change of a goal's plan, in the order they were made: a version, or its end.
    public struct PlanLine: Sendable, Equatable {
        public enum Change: Sendable, Equatable {
            case set(amount: String, anchorDay: SavingsAnchorDay, everyMonths: Int, startMonth: LocalMonth, endMonth: LocalMonth?)
            case ended(after: LocalDate)
        }
        public var goalId: UUID
        public var seq: Int64
        public var change: Change
    }

    public struct MovementLine: Sendable, Equatable {
        public var id: UUID
        public var goalId: UUID
        public var kind: String
        public var amount: String
        public var currency: String
        public var date: LocalDate
        public var occurrence: LocalDate?
        public var note: String?
    }

    /// Whether the line holds a health record, stored in batches rather than one by one.
    public var isHealthRecord: Bool {
        switch self {
        case .healthSample, .sleepSegment, .workout: true
        default: false
        }
    }
}

extension LifelogImportLine {
    public static let format = "lifelog-export"
    /// The newest version this import reads (and every earlier one).
    public static let newestVersion = 1

    /// Why each kind of line that is not imported is not: what it holds is a secret never
    /// exported, someone else's, or figures the server computes again from the imported facts.
    public static let notCarried: [String: String] = [
        "device": "device: its key is never exported; pair the device again",
        "webhook": "webhook: its signing secret is never exported; add it again for a new secret",
        "member": "member: another account; invite them again",
        "daily_summary": "daily_summary: computed again from the imported samples",
        "audit_finding": "audit_finding: the data audit runs again over the imported samples",
    ]
}
