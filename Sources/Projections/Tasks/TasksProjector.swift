import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model of tasks.
public struct TasksProjector: Projector {
    public let name = "tasks"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_tasks", "rm_task_series"]
    public let eventTypes: [String]? = TaskEvent.types

    public init() {}

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            try await recordVersion(event, on: connection, logger: logger)
            switch event.type {
            case TaskEvent.Created.type:
                let t = try decode(TaskEvent.Created.self, event)
                let repeatJSON = try t.repeat.map { try EventCoding.encode($0) }
                try await connection.run("""
                    INSERT INTO rm_tasks (task_id, owner_id, series_id, title, notes, priority, due_date, due_time, repeat,
                                          anchor_date, occurrence, completed, revision, created_at)
                    VALUES (\(t.taskId), \(event.ownerId), \(t.seriesId), \(t.title), \(t.notes), \(Int16(t.priority)),
                            \(t.dueDate?.description)::date, \(t.dueTime?.description), \(repeatJSON)::jsonb,
                            \(t.anchorDate?.description)::date, \(t.occurrence), false, 1, \(event.recordedAt))
                    """, logger: logger)
            case TaskEvent.Changed.type:
                let t = try decode(TaskEvent.Changed.self, event)
                try await connection.run("""
                    UPDATE rm_tasks SET title = \(t.title), notes = \(t.notes), priority = \(Int16(t.priority)),
                      due_date = \(t.dueDate?.description)::date, due_time = \(t.dueTime?.description),
                      anchor_date = COALESCE(\(t.anchorDate?.description)::date, anchor_date), revision = revision + 1
                    WHERE owner_id = \(event.ownerId) AND task_id = \(t.taskId)
                    """, logger: logger)
            case TaskEvent.Completed.type:
                let t = try decode(TaskEvent.Completed.self, event)
                try await connection.run("""
                    UPDATE rm_tasks SET completed = true, completed_at = \(t.completedAt), next_task_id = \(t.nextTaskId),
                      revision = revision + 1
                    WHERE owner_id = \(event.ownerId) AND task_id = \(t.taskId)
                    """, logger: logger)
            case TaskEvent.Uncompleted.type:
                let t = try decode(TaskEvent.Uncompleted.self, event)
                try await connection.run("""
                    UPDATE rm_tasks SET completed = false, completed_at = NULL, next_task_id = NULL, revision = revision + 1
                    WHERE owner_id = \(event.ownerId) AND task_id = \(t.taskId)
                    """, logger: logger)
            case TaskEvent.Deleted.type:
                let t = try decode(TaskEvent.Deleted.self, event)
                try await connection.run("DELETE FROM rm_tasks WHERE owner_id = \(event.ownerId) AND task_id = \(t.taskId)", logger: logger)
            default:
                continue
            }
        }
    }

    /// Every event of a series' stream moves the series' version, which commands append at.
    /// Written before the event's own change, while a deleted task's row still names its series.
    private func recordVersion(_ event: RecordedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        if event.type == TaskEvent.Created.type {
            let created = try decode(TaskEvent.Created.self, event)
            try await connection.run("""
                INSERT INTO rm_task_series (owner_id, series_id, version) VALUES (\(event.ownerId), \(created.seriesId), \(event.streamVersion))
                ON CONFLICT (owner_id, series_id) DO UPDATE SET version = excluded.version
                """, logger: logger)
            return
        }
        struct AnyTask: Decodable { var taskId: UUID }
        let task = try decode(AnyTask.self, event)
        try await connection.run("""
            UPDATE rm_task_series SET version = \(event.streamVersion)
            WHERE owner_id = \(event.ownerId)
              AND series_id = (SELECT series_id FROM rm_tasks WHERE owner_id = \(event.ownerId) AND task_id = \(task.taskId))
            """, logger: logger)
    }
}
