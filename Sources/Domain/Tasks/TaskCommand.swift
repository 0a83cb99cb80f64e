import Foundation

/// A new task, as `POST /tasks` sends it.
public struct TaskDraft: Sendable, Decodable {
    public var title: String?
    public var notes: String?
    public var priority: Int?
    public var dueDate: String?
    public var dueTime: String?
    public var `repeat`: TaskRepeat?

    public init(title: String?, notes: String? = nil, priority: Int? = nil, dueDate: String? = nil, dueTime: String? = nil,
                repeat: TaskRepeat? = nil) {
        self.title = title
        self.notes = notes
        self.priority = priority
        self.dueDate = dueDate
        self.dueTime = dueTime
        self.repeat = `repeat`
    }
}

/// A partial update: absent fields stay, `null` clears notes, due_date or due_time.
public struct TaskChange: Sendable, Decodable {
    public var title: String?
    public var notes: PatchField<String> = .keep
    public var priority: Int?
    public var dueDate: PatchField<String> = .keep
    public var dueTime: PatchField<String> = .keep
    /// Only ever refused: a series keeps the rule it was created with.
    public var changesRepeat = false

    public init(title: String? = nil, notes: PatchField<String> = .keep, priority: Int? = nil, dueDate: PatchField<String> = .keep,
                dueTime: PatchField<String> = .keep) {
        self.title = title
        self.notes = notes
        self.priority = priority
        self.dueDate = dueDate
        self.dueTime = dueTime
    }

    enum CodingKeys: String, CodingKey { case title, notes, priority, dueDate, dueTime, `repeat` }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        notes = try container.decodePatch(String.self, forKey: .notes)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        dueDate = try container.decodePatch(String.self, forKey: .dueDate)
        dueTime = try container.decodePatch(String.self, forKey: .dueTime)
        // `"repeat": null` asks for no change, as it always has; only a rule is refused.
        changesRepeat = try container.contains(.repeat) && !container.decodeNil(forKey: .repeat)
    }
}

/// What a client can ask of a task. Ids of tasks a command creates come from the caller, so a
/// retried request (same Idempotency-Key) creates the same ids.
public enum TaskCommand: Sendable {
    case create(id: UUID, TaskDraft)
    case change(taskId: UUID, TaskChange)
    case complete(taskId: UUID, nextId: UUID)
    case uncomplete(taskId: UUID)
    case delete(taskId: UUID)
}
