import Domain
import Foundation
import Logging
import EventStore
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
    /// Events applied to this task: its ETag.
    public var version: Int64
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

/// The user's clock as task queries need it.
public struct TaskClock: Sendable {
    /// The logical today (day_start_hour applied).
    public var today: LocalDate
    /// The real local date and time.
    public var date: LocalDate
    public var time: LocalTime
    public init(today: LocalDate, date: LocalDate, time: LocalTime) {
        self.today = today
        self.date = date
        self.time = time
    }
}

/// The queries over what `TasksProjector` writes; every query leads with `owner_id`.
public struct TasksReadModel: Sendable {
    public enum Filter: String, Sendable { case open, today, overdue, completed, all }

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The task's series as `TaskDecider` sees it (the task and the occurrence its completion
    /// created), the series stream's version, and the task's own version. One statement, so
    /// the rows and the version are of one snapshot.
    public func decisionState(_ owner: UUID, _ taskId: UUID) async throws -> (series: TaskSeries, version: Int64, taskVersion: Int64)? {
        var series: TaskSeries?
        var version: Int64 = 0, taskVersion: Int64 = 0
        for try await r in try await client.rows("""
            SELECT s.version, t.series_id, t.anchor_date::text, t.task_id, t.title, t.notes, t.priority, t.due_date::text, t.due_time,
                   t.repeat::text, t.occurrence, t.completed, t.next_task_id, t.revision
            FROM rm_tasks asked
            JOIN rm_task_series s ON s.owner_id = asked.owner_id AND s.series_id = asked.series_id
            JOIN rm_tasks t ON t.owner_id = asked.owner_id AND t.series_id = asked.series_id
                           AND (t.task_id = asked.task_id OR t.task_id = asked.next_task_id)
            WHERE asked.owner_id = \(owner) AND asked.task_id = \(taskId)
            """, logger: logger).decode((Int64, UUID, String?, UUID, String, String?, Int16, String?, String?, String?, Int, Bool, UUID?, Int64).self) {
            version = r.0
            let item = TaskSeries.Item(
                id: r.3, title: r.4, notes: r.5, priority: Int(r.6), dueDate: try Self.date(r.7), dueTime: try Self.time(r.8),
                repeat: try Self.rule(r.9), occurrence: r.10, completed: r.11, nextTaskId: r.12, revision: r.13)
            if r.3 == taskId {
                taskVersion = r.13
                if series == nil { series = TaskSeries(seriesId: r.1, anchor: try Self.date(r.2), tasks: [:]) }
                series?.anchor = try Self.date(r.2)
            } else if series == nil {
                series = TaskSeries(seriesId: r.1, anchor: nil, tasks: [:])
            }
            series?.tasks[r.3] = item
        }
        guard let series, series.tasks[taskId] != nil else { return nil }
        return (series, version, taskVersion)
    }

    public func query(_ owner: UUID, filter: Filter, taskId: UUID?, after: TaskCursor?, limit: Int, now: TaskClock) async throws -> [TaskView] {
        let today = now.today.description
        let afterDue = after?.due ?? "0001-01-01"
        let afterPriority = after.map { -$0.priority } ?? Int.min
        let afterMicros = after?.createdMicros ?? Int64.min
        let afterId = after?.id ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        // "today" lists what needs doing today: due today or already overdue. The overdue test
        // is TaskRules.isOverdue in SQL, so a page is filtered before LIMIT, not after.
        let nowDate = now.date.description, nowTime = now.time.description
        let rows = try await client.rows("""
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
            ORDER BY rm_tasks.sort_due, priority DESC, created_at, task_id
            LIMIT \(limit)
            """, logger: logger)
        var views: [TaskView] = []
        for try await r in rows.decode((UUID, String, String?, Int16, String?, String?, String?, Bool, Date?, UUID?, Int64, Date, String, Int64).self) {
            let due = try Self.date(r.4)
            let time = try Self.time(r.5)
            let overdue = TaskRules.isOverdue(completed: r.7, dueDate: due, dueTime: time, today: now.today, nowDate: now.date, nowTime: now.time)
            views.append(TaskView(
                id: r.0, title: r.1, notes: r.2, priority: Int(r.3), dueDate: due, dueTime: time,
                repeat: try Self.rule(r.6), completed: r.7, completedAt: r.8,
                nextTaskId: r.9, overdue: overdue, dueToday: !r.7 && due == now.today, version: r.10, createdAt: r.11,
                sortKey: TaskCursor(due: r.12, priority: Int(r.3), createdMicros: r.13, id: r.0)))
        }
        return views
    }

    /// The open tasks with a due date up to `through` of many owners at once (the reminder
    /// job's batch), by owner, in list order.
    public func openDue(owners: [UUID], through: LocalDate) async throws -> [UUID: [ReminderAgenda.OpenTask]] {
        var tasks: [UUID: [ReminderAgenda.OpenTask]] = [:]
        for try await (owner, id, title, due, time) in try await client.rows("""
            SELECT owner_id, task_id, title, due_date::text, due_time FROM rm_tasks
            WHERE owner_id = ANY(\(owners)) AND NOT completed AND due_date <= \(through.description)::date
            ORDER BY owner_id, sort_due, priority DESC, created_at, task_id
            """, logger: logger).decode((UUID, UUID, String, String, String?).self) {
            guard let dueDate = try Self.date(due) else { continue }
            tasks[owner, default: []].append(.init(id: id, title: title, dueDate: dueDate, dueTime: try Self.time(time)))
        }
        return tasks
    }

    static func date(_ raw: String?) throws -> LocalDate? {
        try raw.map { raw in
            guard let date = LocalDate(raw) else { throw CorruptData("task date", raw) }
            return date
        }
    }

    static func time(_ raw: String?) throws -> LocalTime? {
        try raw.map { raw in
            guard let time = LocalTime(raw) else { throw CorruptData("task time", raw) }
            return time
        }
    }

    static func rule(_ raw: String?) throws -> TaskRepeat? {
        try raw.map { raw in
            do { return try EventCoding.decode(TaskRepeat.self, from: raw) } catch { throw CorruptData("task repeat", raw) }
        }
    }
}
