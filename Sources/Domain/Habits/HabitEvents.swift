import Foundation

/// Events of a habit's stream (`habit-<uuid>`), a case each; their payloads are the nested types.
public enum HabitEvent: AreaEvent {
    case created(Created)
    case changed(Changed)
    case archived(Archived)
    case restored(Restored)
    case logged(Logged)
    case logRemoved(LogRemoved)
    case freezeAdded(FreezeAdded)
    case freezeRemoved(FreezeRemoved)

    public var payload: any DomainEvent {
        switch self {
        case .created(let event): event
        case .changed(let event): event
        case .archived(let event): event
        case .restored(let event): event
        case .logged(let event): event
        case .logRemoved(let event): event
        case .freezeAdded(let event): event
        case .freezeRemoved(let event): event
        }
    }

    public init?(type: String, version: Int16, json: String) throws {
        switch type {
        case Created.type: self = .created(try Self.payload(Created.self, version, json))
        case Changed.type: self = .changed(try Self.payload(Changed.self, version, json))
        case Archived.type: self = .archived(try Self.payload(Archived.self, version, json))
        case Restored.type: self = .restored(try Self.payload(Restored.self, version, json))
        case Logged.type: self = .logged(try Self.payload(Logged.self, version, json))
        case LogRemoved.type: self = .logRemoved(try Self.payload(LogRemoved.self, version, json))
        case FreezeAdded.type: self = .freezeAdded(try Self.payload(FreezeAdded.self, version, json))
        case FreezeRemoved.type: self = .freezeRemoved(try Self.payload(FreezeRemoved.self, version, json))
        default: return nil
        }
    }

    public static let streamType = "habit"
    public static func streamId(_ habitId: UUID) -> String { "habit-\(habitId.uuidString.lowercased())" }

    public enum Kind: String, Codable, Sendable { case boolean, numeric }

    public struct Created: DomainEvent, Equatable {
        public static let type = "habit.created"
        public var habitId: UUID
        public var name: String
        public var emoji: String?
        public var color: String?
        public var kind: Kind
        public var target: Decimal?
        public var unit: String?
        public var schedule: HabitSchedule
        public var startDate: LocalDate
        public var reminderTime: LocalTime?
        public init(habitId: UUID, name: String, emoji: String? = nil, color: String? = nil, kind: Kind, target: Decimal? = nil, unit: String? = nil, schedule: HabitSchedule, startDate: LocalDate, reminderTime: LocalTime? = nil) {
            self.habitId = habitId
            self.name = name
            self.emoji = emoji
            self.color = color
            self.kind = kind
            self.target = target
            self.unit = unit
            self.schedule = schedule
            self.startDate = startDate
            self.reminderTime = reminderTime
        }

        /// The event a checked definition creates, from `startDate` on.
        public init(habitId: UUID, _ definition: HabitDefinition, startDate: LocalDate) {
            self.init(habitId: habitId, name: definition.name, emoji: definition.emoji, color: definition.color, kind: definition.kind,
                      target: definition.target, unit: definition.unit, schedule: definition.schedule, startDate: startDate,
                      reminderTime: definition.reminderTime)
        }
    }

    /// Only the fields that changed; a schedule change carries the date it applies from.
    public struct Changed: DomainEvent, Equatable {
        public static let type = "habit.changed"
        public var habitId: UUID
        public var name: String?
        public var emoji: String?
        public var color: String?
        public var target: Decimal?
        public var unit: String?
        public var reminderTime: LocalTime?
        public var schedule: HabitSchedule?
        public var scheduleFrom: LocalDate?
        /// Optional fields the change removed (a nil field above means "unchanged"). Absent in
        /// events written before fields could be cleared, which reads as none.
        public var cleared: [ClearableField]?

        public enum ClearableField: String, Codable, Sendable, Hashable {
            case emoji, color, unit, reminderTime = "reminder_time"
        }

        public init(habitId: UUID, name: String? = nil, emoji: String? = nil, color: String? = nil, target: Decimal? = nil, unit: String? = nil, reminderTime: LocalTime? = nil, schedule: HabitSchedule? = nil, scheduleFrom: LocalDate? = nil, cleared: [ClearableField]? = nil) {
            self.habitId = habitId
            self.cleared = cleared
            self.name = name
            self.emoji = emoji
            self.color = color
            self.target = target
            self.unit = unit
            self.reminderTime = reminderTime
            self.schedule = schedule
            self.scheduleFrom = scheduleFrom
        }
    }

    public struct Archived: DomainEvent, Equatable {
        public static let type = "habit.archived"
        public var habitId: UUID
        public init(habitId: UUID) {
            self.habitId = habitId
        }
    }

    public struct Restored: DomainEvent, Equatable {
        public static let type = "habit.restored"
        public var habitId: UUID
        public init(habitId: UUID) {
            self.habitId = habitId
        }
    }

    public struct Logged: DomainEvent, Equatable {
        public static let type = "habit.logged"
        public var habitId: UUID
        /// The local date the log counts for; it never moves when the user changes zone.
        public var date: LocalDate
        public var value: Decimal
        public init(habitId: UUID, date: LocalDate, value: Decimal) {
            self.habitId = habitId
            self.date = date
            self.value = value
        }
    }

    public struct LogRemoved: DomainEvent, Equatable {
        public static let type = "habit.log_removed"
        public var habitId: UUID
        public var date: LocalDate
        public init(habitId: UUID, date: LocalDate) {
            self.habitId = habitId
            self.date = date
        }
    }

    public struct FreezeAdded: DomainEvent, Equatable {
        public static let type = "habit.freeze_added"
        public var habitId: UUID
        public var freezeId: UUID
        public var from: LocalDate
        public var to: LocalDate
        public var reason: String?
        public init(habitId: UUID, freezeId: UUID, from: LocalDate, to: LocalDate, reason: String? = nil) {
            self.habitId = habitId
            self.freezeId = freezeId
            self.from = from
            self.to = to
            self.reason = reason
        }
    }

    public struct FreezeRemoved: DomainEvent, Equatable {
        public static let type = "habit.freeze_removed"
        public var habitId: UUID
        public var freezeId: UUID
        public init(habitId: UUID, freezeId: UUID) {
            self.habitId = habitId
            self.freezeId = freezeId
        }
    }

    public static let types = [Created.type, Changed.type, Archived.type, Restored.type, Logged.type, LogRemoved.type,
                               FreezeAdded.type, FreezeRemoved.type]
}
