import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

public struct TaskView: Sendable {
    public var id: UUID
    public var title: String
    public var notes: String?
    public var priority: Int
    public var dueDate: LocalDate?
    public var dueTime: LocalTime?
    public var `repeat`: TaskRepeat?
    public var completed: Bool
    public var completedAt: Date?
    public var nextTaskId: UUID?
    public var overdue: Bool
    public var dueToday: Bool
    public var revision: Int
    public var createdAt: Date
    /// The list position, for cursors: (due date or 9999-12-31, priority, creation µs, id).
    public var sortKey: TaskCursor
}

public struct TaskCursor: Sendable, Codable, Equatable {
    public var due: String
    public var priority: Int
    public var createdMicros: Int64
    public var id: UUID
}

public enum TaskError: Error, Sendable, Equatable {
    case notFound
    case versionMismatch(current: Int)
}

/// Tasks: the use cases behind `/api/v1/tasks`.
public struct TaskService: Sendable {
    public enum Filter: String, Sendable { case open, today, overdue, completed, all }

    let store: PostgresEventStore
    let client: PostgresClient
    let clock: any WallClock
    let logger: Logger

    public init(store: PostgresEventStore, clock: any WallClock, logger: Logger) {
        self.store = store
        self.client = store.client
        self.clock = clock
        self.logger = logger
    }

    public struct Draft: Sendable, Decodable {
        public var title: String?
        public var notes: String?
        public var priority: Int?
        public var dueDate: String?
        public var dueTime: String?
        public var `repeat`: TaskRepeat?
    }

    /// A partial update: absent fields stay, `null` clears notes, due_date or due_time.
    public struct Change: Sendable, Decodable {
        public var title: String?
        public var notes: PatchField<String> = .keep
        public var priority: Int?
        public var dueDate: PatchField<String> = .keep
        public var dueTime: PatchField<String> = .keep
        /// Only ever refused: a series keeps the rule it was created with.
        public var changesRepeat = false

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

    struct Now {
        /// The logical today (day_start_hour applied).
        var today: LocalDate
        /// The real local date and time.
        var date: LocalDate
        var time: LocalTime
    }

    func now(_ owner: UUID) async throws -> Now {
        guard let calendar = try await UserCalendar.load(owner, client: client, logger: logger) else { throw TaskError.notFound }
        let instant = clock.now()
        return Now(today: calendar.today(at: instant), date: calendar.wallDate(at: instant), time: calendar.timeOfDay(at: instant))
    }

    func parse(_ draft: Draft) throws(ValidationFailure) -> (LocalDate?, LocalTime?) {
        var errors = TaskRules.validationErrors(title: draft.title, priority: draft.priority, recurrence: draft.repeat,
                                                hasDueDate: draft.dueDate != nil)
        let due = draft.dueDate.flatMap(LocalDate.init)
        if draft.dueDate != nil, due == nil { errors.append(FieldError("due_date", "must be a date as YYYY-MM-DD")) }
        let time = draft.dueTime.flatMap(LocalTime.init)
        if draft.dueTime != nil, time == nil { errors.append(FieldError("due_time", "must be a time of day as HH:MM")) }
        if draft.dueTime != nil, draft.dueDate == nil { errors.append(FieldError("due_time", "needs a due_date")) }
        if let notes = draft.notes, notes.count > 10_000 { errors.append(FieldError("notes", "must be at most 10000 characters")) }
        try ValidationFailure.check(errors)
        return (due, time)
    }

    public func create(_ owner: UUID, _ draft: Draft) async throws -> TaskView {
        if draft.title == nil { throw ValidationFailure("title", "is required") }
        let (due, time) = try parse(draft)
        let taskId = UUID()
        let event = TaskEvent.Created(
            taskId: taskId, seriesId: taskId, title: (draft.title ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
            notes: draft.notes, priority: draft.priority ?? 2, dueDate: due, dueTime: time, repeat: draft.repeat,
            anchorDate: draft.repeat == nil ? nil : due, occurrence: 0)
        try await store.append(
            to: StreamName(id: TaskEvent.streamId(taskId), ownerId: owner, type: TaskEvent.streamType), expected: .noStream,
            events: [try NewEvent(event, metadata: .user(owner))])
        return try await task(owner, taskId)
    }

    public func update(_ owner: UUID, _ taskId: UUID, _ change: Change, ifMatch: Int?) async throws -> TaskView {
        if change.changesRepeat { throw ValidationFailure("repeat", "cannot be changed; create a new task") }
        return try await write(owner, taskId, ifMatch: ifMatch) { current, series in
            if change.dueDate.isClear, current.repeat != nil {
                throw ValidationFailure("due_date", "a repeating task keeps a due date; delete it or complete it instead")
            }
            let dueDate = change.dueDate.applied(to: current.dueDate?.description)
            // Clearing the due date clears its time too; a time sent without any date is refused by parse.
            let dueTime = dueDate == nil && change.dueTime.newValue == nil ? nil : change.dueTime.applied(to: current.dueTime?.description)
            let merged = Draft(title: change.title, notes: change.notes.newValue, priority: change.priority, dueDate: dueDate, dueTime: dueTime)
            let (due, time) = try parse(merged)
            // Moving a series' first occurrence moves the series; later ones keep its anchor.
            let reanchor = current.repeat != nil && series.occurrence == 0 && due != series.anchor ? due : nil
            let event = TaskEvent.Changed(
                taskId: taskId, title: change.title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? current.title,
                notes: change.notes.applied(to: current.notes), priority: change.priority ?? current.priority, dueDate: due, dueTime: time,
                anchorDate: reanchor)
            return [try NewEvent(event, metadata: .user(owner))]
        }
    }

    public func delete(_ owner: UUID, _ taskId: UUID) async throws {
        _ = try await write(owner, taskId, answer: false) { _, _ in
            [try NewEvent(TaskEvent.Deleted(taskId: taskId), metadata: .user(owner))]
        }
    }

    /// Completes the task; a repeating one gets its next occurrence in the same append,
    /// due on the anchor's schedule (never chained from the previous due date).
    public func complete(_ owner: UUID, _ taskId: UUID) async throws -> TaskView {
        try await write(owner, taskId) { current, series in
            guard !current.completed else { return [] }
            var events: [NewEvent] = []
            var nextId: UUID?
            if let rule = current.repeat, let anchor = series.anchor {
                let next = UUID()
                nextId = next
                let (occurrence, due) = rule.next(anchor: anchor, after: series.occurrence, currentDue: current.dueDate)
                let created = TaskEvent.Created(
                    taskId: next, seriesId: series.seriesId, title: current.title, notes: current.notes, priority: current.priority,
                    dueDate: due, dueTime: current.dueTime, repeat: rule, anchorDate: anchor, occurrence: occurrence)
                events.append(try NewEvent(created, metadata: .user(owner)))
            }
            let completed = TaskEvent.Completed(taskId: taskId, completedAt: clock.now(), nextTaskId: nextId)
            events.insert(try NewEvent(completed, metadata: .user(owner)), at: 0)
            return events
        }
    }

    /// Reopens the task and removes the occurrence its completion created, if that one is untouched.
    public func uncomplete(_ owner: UUID, _ taskId: UUID) async throws -> TaskView {
        try await write(owner, taskId) { current, _ in
            guard current.completed else { return [] }
            var events = [try NewEvent(TaskEvent.Uncompleted(taskId: taskId), metadata: .user(owner))]
            if let next = current.nextTaskId, let nextView = try? await task(owner, next), nextView.revision == 1 {
                events.append(try NewEvent(TaskEvent.Deleted(taskId: next), metadata: .user(owner)))
            }
            return events
        }
    }

    struct Series {
        var seriesId: UUID
        var anchor: LocalDate?
        var occurrence: Int
        /// The version of the series' stream when it was read.
        var version: Int64
    }

    func series(_ taskId: UUID) async throws -> Series {
        for try await (series, anchor, occurrence, version) in try await client.query("""
            SELECT t.series_id, t.anchor_date::text, t.occurrence, s.version
            FROM rm_tasks t JOIN streams s ON s.stream_id = 'task-' || t.series_id::text
            WHERE t.task_id = \(taskId)
            """, logger: logger).decode((UUID, String?, Int, Int64).self) {
            return Series(seriesId: series, anchor: anchor.flatMap(LocalDate.init), occurrence: occurrence, version: version)
        }
        throw TaskError.notFound
    }

    /// Decides a change from the task as it is and appends it at the series' version read first:
    /// when another request changed the series in between, the change is decided again on the
    /// new state (twice at most), so two requests at once never both act on the same state
    /// (no double next occurrence, no silently undone edit). With If-Match, a changed task is 412.
    /// `answer` false (a delete) skips reading the task back.
    func write(_ owner: UUID, _ taskId: UUID, ifMatch: Int? = nil, answer: Bool = true,
               _ decide: (TaskView, Series) async throws -> [NewEvent]) async throws -> TaskView {
        var attempt = 0
        while true {
            attempt += 1
            // The version first: a change that lands after it makes the append below fail.
            let series = try await series(taskId)
            let current = try await task(owner, taskId)
            if let ifMatch, ifMatch != current.revision { throw TaskError.versionMismatch(current: current.revision) }
            let events = try await decide(current, series)
            guard !events.isEmpty else { return current }
            do {
                try await store.append(to: StreamName(id: TaskEvent.streamId(series.seriesId), ownerId: owner, type: TaskEvent.streamType),
                                       expected: .exact(series.version), events: events)
            } catch EventStoreError.wrongExpectedVersion where attempt < 3 {
                continue
            }
            return answer ? try await task(owner, taskId) : current
        }
    }

    // MARK: Queries

    public func task(_ owner: UUID, _ taskId: UUID) async throws -> TaskView {
        let now = try await now(owner)
        guard let view = try await query(owner, filter: .all, taskId: taskId, after: nil, limit: 1, now: now).first else {
            throw TaskError.notFound
        }
        return view
    }

    public func list(_ owner: UUID, filter: Filter, after: TaskCursor?, limit: Int) async throws -> [TaskView] {
        try await query(owner, filter: filter, taskId: nil, after: after, limit: limit, now: try await now(owner))
    }

    func query(_ owner: UUID, filter: Filter, taskId: UUID?, after: TaskCursor?, limit: Int, now: Now) async throws -> [TaskView] {
        let today = now.today.description
        let afterDue = after?.due ?? "0001-01-01"
        let afterPriority = after.map { -$0.priority } ?? Int.min
        let afterMicros = after?.createdMicros ?? Int64.min
        let afterId = after?.id ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        // "today" lists what needs doing today: due today or already overdue. The overdue test
        // is TaskRules.isOverdue in SQL, so a page is filtered before LIMIT, not after.
        let nowDate = now.date.description, nowTime = now.time.description
        let rows = try await client.query("""
            SELECT task_id, title, notes, priority, due_date::text, due_time, repeat::text, completed, completed_at, next_task_id,
                   revision, created_at, sort_due::text, (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint
            FROM rm_tasks
            WHERE owner_id = \(owner) AND (\(taskId)::uuid IS NULL OR task_id = \(taskId))
              AND CASE \(filter.rawValue)
                    WHEN 'open' THEN NOT completed
                    WHEN 'completed' THEN completed
                    WHEN 'today' THEN NOT completed AND (due_date <= \(today)::date
                      OR (due_time IS NOT NULL AND (due_date, due_time) <= (\(nowDate)::date, \(nowTime)::text)))
                    WHEN 'overdue' THEN NOT completed AND (due_date < \(today)::date
                      OR (due_time IS NOT NULL AND (due_date, due_time) <= (\(nowDate)::date, \(nowTime)::text)))
                    ELSE true END
              AND (sort_due, -priority, (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint, task_id)
                  > (\(afterDue)::date, \(afterPriority), \(afterMicros), \(afterId))
            ORDER BY sort_due, priority DESC, created_at, task_id
            LIMIT \(limit)
            """, logger: logger)
        var views: [TaskView] = []
        for try await r in rows.decode((UUID, String, String?, Int16, String?, String?, String?, Bool, Date?, UUID?, Int, Date, String, Int64).self) {
            let due = r.4.flatMap(LocalDate.init)
            let time = r.5.flatMap(LocalTime.init)
            let overdue = TaskRules.isOverdue(completed: r.7, dueDate: due, dueTime: time, today: now.today, nowDate: now.date, nowTime: now.time)
            views.append(TaskView(
                id: r.0, title: r.1, notes: r.2, priority: Int(r.3), dueDate: due, dueTime: time,
                repeat: try r.6.map { try EventCoding.decode(TaskRepeat.self, from: $0) }, completed: r.7, completedAt: r.8,
                nextTaskId: r.9, overdue: overdue, dueToday: !r.7 && due == now.today, revision: r.10, createdAt: r.11,
                sortKey: TaskCursor(due: r.12, priority: Int(r.3), createdMicros: r.13, id: r.0)))
        }
        return views
    }
}
