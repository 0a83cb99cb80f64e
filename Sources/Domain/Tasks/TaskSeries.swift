import Foundation

/// A task series as its rules see it: the occurrences of one repeating task (or the one task
/// that does not repeat) share a stream, so completing one and creating the next is one append.
/// Loaded from the read model, it may hold only the occurrences a command touches.
public struct TaskSeries: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var id: UUID
        public var title: String
        public var notes: String?
        public var priority: Int
        public var dueDate: LocalDate?
        public var dueTime: LocalTime?
        public var `repeat`: TaskRepeat?
        public var occurrence: Int
        public var completed: Bool
        public var nextTaskId: UUID?
        /// Events applied to this task; 1 = untouched since it was created. Its ETag.
        public var revision: Int64

        public init(id: UUID, title: String, notes: String?, priority: Int, dueDate: LocalDate?, dueTime: LocalTime?,
                    repeat: TaskRepeat?, occurrence: Int, completed: Bool = false, nextTaskId: UUID? = nil, revision: Int64 = 1) {
            self.id = id
            self.title = title
            self.notes = notes
            self.priority = priority
            self.dueDate = dueDate
            self.dueTime = dueTime
            self.repeat = `repeat`
            self.occurrence = occurrence
            self.completed = completed
            self.nextTaskId = nextTaskId
            self.revision = revision
        }
    }

    public var seriesId: UUID
    /// A repeating series' first due date: occurrence k is due k units after it.
    public var anchor: LocalDate?
    public var tasks: [UUID: Item]

    public init(seriesId: UUID, anchor: LocalDate?, tasks: [UUID: Item]) {
        self.seriesId = seriesId
        self.anchor = anchor
        self.tasks = tasks
    }
}
