import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model of tasks.
public struct TasksProjector: Projector {
    public let name = "tasks"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_tasks"]
    public let eventTypes: [String]? = TaskEvent.types

    public init() {}

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
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
                    WHERE task_id = \(t.taskId)
                    """, logger: logger)
            case TaskEvent.Completed.type:
                let t = try decode(TaskEvent.Completed.self, event)
                try await connection.run("""
                    UPDATE rm_tasks SET completed = true, completed_at = \(t.completedAt), next_task_id = \(t.nextTaskId),
                      revision = revision + 1
                    WHERE task_id = \(t.taskId)
                    """, logger: logger)
            case TaskEvent.Uncompleted.type:
                let t = try decode(TaskEvent.Uncompleted.self, event)
                try await connection.run("""
                    UPDATE rm_tasks SET completed = false, completed_at = NULL, next_task_id = NULL, revision = revision + 1
                    WHERE task_id = \(t.taskId)
                    """, logger: logger)
            case TaskEvent.Deleted.type:
                let t = try decode(TaskEvent.Deleted.self, event)
                try await connection.run("DELETE FROM rm_tasks WHERE task_id = \(t.taskId)", logger: logger)
            default:
                continue
            }
        }
    }
}
