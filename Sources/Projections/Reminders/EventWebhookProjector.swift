import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Puts domain events into the outbox for the event webhooks that asked for them (async):
/// a completed task, and a habit log that completes its day. A webhook gets only events
/// recorded after it was made, so a replay never sends old news to a new subscriber, and the
/// outbox key (`event/<webhook>/<event id>`) makes a replay harmless for the rest.
public struct EventWebhookProjector: Projector {
    public let name = "event-webhooks"
    public let mode = ProjectorMode.async
    /// The outbox is delivery state, not a read model: a rebuild must not empty it.
    public let tables: [String] = []
    public let eventTypes: [String]? = [TaskEvent.Completed.type, HabitEvent.Logged.type]
    /// What this queues is pushed at once (the delivery daemon wakes at the commit, issue 26):
    /// rounds a fifth of a second apart keep 100 habit logs a second from adding 100 commits a
    /// second, and cost at most that much of a webhook's 2 s.
    public let pace: Duration = .milliseconds(200)

    public init() {}

    // An event is due as soon as it is queued (next_attempt_at -infinity): the job's clock decides
    // nothing about it, and the database's recording time is not the job's clock.

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        var queued = false
        for event in events {
            var subscribers: [UUID] = []
            for try await (id, names) in try await connection.rows("""
                SELECT id, events FROM webhook_endpoints
                WHERE user_id = \(event.ownerId) AND purpose = 'events' AND disabled_at IS NULL AND created_at <= \(event.recordedAt)
                """, logger: logger).decode((UUID, [String]).self) {
                let name = event.type == TaskEvent.Completed.type ? WebhookEvents.taskCompleted : WebhookEvents.habitCompleted
                if WebhookEvents.matches(names, name) { subscribers.append(id) }
            }
            guard !subscribers.isEmpty else { continue }
            let (name, subject, data): (String, UUID, String)
            var dayKey = event.eventId.uuidString.lowercased()
            switch event.type {
            case TaskEvent.Completed.type:
                let completed = try decode(TaskEvent.Completed.self, event)
                var title = ""
                for try await text in try await connection.rows("SELECT title FROM rm_tasks WHERE task_id = \(completed.taskId)", logger: logger)
                    .decode(String.self) { title = text }
                (name, subject) = (WebhookEvents.taskCompleted, completed.taskId)
                data = try EventCoding.encode(["task_id": completed.taskId.uuidString.lowercased(), "title": title,
                                               "completed_at": completed.completedAt.formatted(.iso8601)])
            default:
                let logged = try decode(HabitEvent.Logged.self, event)
                // The day's total, as the habits read model keeps it: a numeric habit's day is
                // complete once the sum of its logs reaches the target.
                var found: (String, String, Decimal?, Decimal?)?
                for try await row in try await connection.rows("""
                    SELECT h.name, h.kind, h.target, l.value FROM rm_habits h
                    LEFT JOIN rm_habit_logs l ON l.habit_id = h.habit_id AND l.date = \(logged.date.description)::date
                    WHERE h.habit_id = \(logged.habitId)
                    """, logger: logger).decode((String, String, Decimal?, Decimal?).self) { found = row }
                guard let (habitName, kind, target, total) = found, let total, kind == "boolean" || total >= (target ?? 0) else { continue }
                (name, subject) = (WebhookEvents.habitCompleted, logged.habitId)
                data = try EventCoding.encode(["habit_id": logged.habitId.uuidString.lowercased(), "name": habitName,
                                               "date": logged.date.description, "value": "\(total)"])
                // Once per habit and day, however many logs cross or follow the target.
                dayKey = "habit/\(logged.habitId.uuidString.lowercased())/\(logged.date)"
            }
            for endpoint in subscribers {
                try await connection.rows("""
                    INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status,
                                                 endpoint_id, next_attempt_at, created_at)
                    VALUES (gen_random_uuid(), \(event.ownerId), \("event/\(endpoint.uuidString.lowercased())/\(dayKey)"),
                            'event', \(name), \(subject.uuidString.lowercased()), \(event.recordedAt), '', '', '', \(data)::jsonb, 'pending',
                            \(endpoint), '-infinity', \(event.recordedAt))
                    ON CONFLICT (key) DO NOTHING
                    """, logger: logger)
                queued = true
            }
        }
        // Wakes every instance's delivery daemon when this batch commits (the same channel the
        // reminder planner rings). A rebuild has no outbox to fill (`tables` is empty).
        if queued { try await connection.run("SELECT pg_notify('lifelog_outbox', '')", logger: logger) }
    }
}
