import Foundation

/// Events of a task series' stream (`task-<uuid>`), a case each; their payloads are the nested types.
public enum TaskEvent: AreaEvent {
    case created(Created)
    case changed(Changed)
    case completed(Completed)
    case uncompleted(Uncompleted)
    case deleted(Deleted)

    public var payload: any DomainEvent {
        switch self {
        case .created(let event): event
        case .changed(let event): event
        case .completed(let event): event
        case .uncompleted(let event): event
        case .deleted(let event): event
        }
    }

    public init?(type: String, version: Int16, json: String) throws {
        switch type {
        case Created.type: self = .created(try Self.payload(Created.self, version, json))
        case Changed.type: self = .changed(try Self.payload(Changed.self, version, json))
        case Completed.type: self = .completed(try Self.payload(Completed.self, version, json))
        case Uncompleted.type: self = .uncompleted(try Self.payload(Uncompleted.self, version, json))
        case Deleted.type: self = .deleted(try Self.payload(Deleted.self, version, json))
        default: return nil
        }
    }

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
