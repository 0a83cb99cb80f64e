import Foundation

/// A new task's fields, as `POST /tasks` sends them (`TaskDraft`: dates and times as text) and
/// as the rules take them (`TaskDefinition`: `LocalDate`, `LocalTime`; the title there and
/// trimmed, the priority set), which `TaskDefinition.validated(from:)` makes of a draft.
public struct TaskFields<Day: Sendable, Time: Sendable>: Sendable {
    public var title: String?
    public var notes: String?
    public var priority: Int?
    public var dueDate: Day?
    public var dueTime: Time?
    public var `repeat`: TaskRepeat?

    public init(title: String?, notes: String? = nil, priority: Int? = nil, dueDate: Day? = nil, dueTime: Time? = nil,
                repeat: TaskRepeat? = nil) {
        self.title = title
        self.notes = notes
        self.priority = priority
        self.dueDate = dueDate
        self.dueTime = dueTime
        self.repeat = `repeat`
    }
}

public typealias TaskDraft = TaskFields<String, String>
public typealias TaskDefinition = TaskFields<LocalDate, LocalTime>

extension TaskFields: Decodable where Day: Decodable, Time: Decodable {}
extension TaskFields: Equatable where Day: Equatable, Time: Equatable {}

/// A partial update's fields, as `PATCH /tasks/{id}` sends them (`TaskChangeDraft`) and as the
/// rules take them (`TaskChange`): absent fields stay, `null` clears notes, due_date or due_time.
public struct TaskChangeFields<Day: Sendable, Time: Sendable>: Sendable {
    /// Trimmed, once validated.
    public var title: String?
    public var notes: PatchField<String> = .keep
    public var priority: Int?
    public var dueDate: PatchField<Day> = .keep
    public var dueTime: PatchField<Time> = .keep
    /// Only ever refused, when the draft is read: a series keeps the rule it was created with.
    public var changesRepeat = false

    public init(title: String? = nil, notes: PatchField<String> = .keep, priority: Int? = nil, dueDate: PatchField<Day> = .keep,
                dueTime: PatchField<Time> = .keep) {
        self.title = title
        self.notes = notes
        self.priority = priority
        self.dueDate = dueDate
        self.dueTime = dueTime
    }
}

public typealias TaskChangeDraft = TaskChangeFields<String, String>
public typealias TaskChange = TaskChangeFields<LocalDate, LocalTime>

extension TaskChangeFields: Equatable where Day: Equatable, Time: Equatable {}

extension TaskChangeFields: Decodable where Day: Decodable, Time: Decodable {
    enum CodingKeys: String, CodingKey { case title, notes, priority, dueDate, dueTime, `repeat` }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        notes = try container.decodePatch(String.self, forKey: .notes)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        dueDate = try container.decodePatch(Day.self, forKey: .dueDate)
        dueTime = try container.decodePatch(Time.self, forKey: .dueTime)
        // `"repeat": null` asks for no change, as it always has; only a rule is refused.
        changesRepeat = try container.contains(.repeat) && !container.decodeNil(forKey: .repeat)
    }
}

/// What a client can ask of a task, in domain types (the API reads `TaskDraft` and
/// `TaskChangeDraft` into them). Ids of tasks a command creates come from the caller, so a
/// retried request (same Idempotency-Key) creates the same ids.
public enum TaskCommand: Sendable {
    case create(id: UUID, TaskDefinition)
    case change(taskId: UUID, TaskChange)
    case complete(taskId: UUID, nextId: UUID)
    case uncomplete(taskId: UUID)
    case delete(taskId: UUID)
}
