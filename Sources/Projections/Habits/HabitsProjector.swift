import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read models of habits: definitions, the day's totals, freezes.
public struct HabitsProjector: Projector {
    public let name = "habits"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_habits", "rm_habit_logs", "rm_habit_freezes"]
    public let eventTypes: [String]? = HabitEvent.types

    public init() {}

    /// One entry of `rm_habits.schedules`.
    public struct ScheduleEntry: Codable, Sendable {
        public var from: LocalDate
        public var schedule: HabitSchedule
        public init(from: LocalDate, schedule: HabitSchedule) {
            self.from = from
            self.schedule = schedule
        }
    }

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // Over 60 lines: one case per event type, each its own statements: the table reads best whole.
        for event in events {
            let habitId: UUID
            switch event.type {
            case HabitEvent.Created.type:
                let created = try decode(HabitEvent.Created.self, event)
                habitId = created.habitId
                let schedules = try EventCoding.encode([ScheduleEntry(from: created.startDate, schedule: created.schedule)])
                try await connection.run("""
                    INSERT INTO rm_habits (habit_id, owner_id, name, emoji, color, kind, target, unit, schedules, start_date,
                                           reminder_time, archived, version, created_at, updated_at)
                    VALUES (\(created.habitId), \(event.ownerId), \(created.name), \(created.emoji), \(created.color),
                            \(created.kind.rawValue), \(created.target), \(created.unit), \(schedules)::jsonb,
                            \(created.startDate.description)::date, \(created.reminderTime?.description), false,
                            \(event.streamVersion), \(event.recordedAt), \(event.recordedAt))
                    """, logger: logger)
                continue
            case HabitEvent.Changed.type:
                let changed = try decode(HabitEvent.Changed.self, event)
                habitId = changed.habitId
                let cleared = changed.cleared ?? []
                try await connection.run("""
                    UPDATE rm_habits SET name = COALESCE(\(changed.name), name),
                      emoji = CASE WHEN \(cleared.contains(.emoji)) THEN NULL ELSE COALESCE(\(changed.emoji), emoji) END,
                      color = CASE WHEN \(cleared.contains(.color)) THEN NULL ELSE COALESCE(\(changed.color), color) END,
                      target = COALESCE(\(changed.target), target),
                      unit = CASE WHEN \(cleared.contains(.unit)) THEN NULL ELSE COALESCE(\(changed.unit), unit) END,
                      reminder_time = CASE WHEN \(cleared.contains(.reminderTime)) THEN NULL
                                           ELSE COALESCE(\(changed.reminderTime?.description), reminder_time) END
                    WHERE owner_id = \(event.ownerId) AND habit_id = \(habitId)
                    """, logger: logger)
                if let schedule = changed.schedule, let from = changed.scheduleFrom {
                    // A change replaces whatever was planned from its effective date on.
                    let entry = try EventCoding.encode(ScheduleEntry(from: from, schedule: schedule))
                    try await connection.run("""
                        UPDATE rm_habits SET schedules = COALESCE(
                          (SELECT jsonb_agg(e ORDER BY e->>'from') FROM jsonb_array_elements(schedules) e
                           WHERE e->>'from' < \(from.description)), '[]'::jsonb) || jsonb_build_array(\(entry)::jsonb)
                        WHERE owner_id = \(event.ownerId) AND habit_id = \(habitId)
                        """, logger: logger)
                }
            case HabitEvent.Archived.type:
                habitId = try decode(HabitEvent.Archived.self, event).habitId
                try await connection.run("UPDATE rm_habits SET archived = true WHERE owner_id = \(event.ownerId) AND habit_id = \(habitId)", logger: logger)
            case HabitEvent.Restored.type:
                habitId = try decode(HabitEvent.Restored.self, event).habitId
                try await connection.run("UPDATE rm_habits SET archived = false WHERE owner_id = \(event.ownerId) AND habit_id = \(habitId)", logger: logger)
            case HabitEvent.Logged.type:
                let logged = try decode(HabitEvent.Logged.self, event)
                // The log and the habit's version in one statement: the most frequent command
                // holds its habit's stream for one round trip less.
                try await connection.run("""
                    WITH habit AS (
                      UPDATE rm_habits SET version = \(event.streamVersion), updated_at = \(event.recordedAt)
                      WHERE owner_id = \(event.ownerId) AND habit_id = \(logged.habitId) RETURNING kind)
                    INSERT INTO rm_habit_logs AS l (habit_id, owner_id, date, value)
                    VALUES (\(logged.habitId), \(event.ownerId), \(logged.date.description)::date, \(logged.value))
                    ON CONFLICT (habit_id, date) DO UPDATE SET value = CASE
                      WHEN (SELECT kind FROM habit) = 'boolean' THEN 1  -- done is done
                      ELSE l.value + excluded.value END
                    """, logger: logger)
                continue
            case HabitEvent.LogRemoved.type:
                let removed = try decode(HabitEvent.LogRemoved.self, event)
                habitId = removed.habitId
                try await connection.run("""
                    DELETE FROM rm_habit_logs WHERE owner_id = \(event.ownerId) AND habit_id = \(habitId) AND date = \(removed.date.description)::date
                    """, logger: logger)
            case HabitEvent.FreezeAdded.type:
                let freeze = try decode(HabitEvent.FreezeAdded.self, event)
                habitId = freeze.habitId
                try await connection.run("""
                    INSERT INTO rm_habit_freezes (freeze_id, habit_id, owner_id, from_date, to_date, reason)
                    VALUES (\(freeze.freezeId), \(habitId), \(event.ownerId), \(freeze.from.description)::date,
                            \(freeze.to.description)::date, \(freeze.reason))
                    """, logger: logger)
            case HabitEvent.FreezeRemoved.type:
                let removed = try decode(HabitEvent.FreezeRemoved.self, event)
                habitId = removed.habitId
                try await connection.run("DELETE FROM rm_habit_freezes WHERE owner_id = \(event.ownerId) AND freeze_id = \(removed.freezeId)", logger: logger)
            default:
                continue
            }
            try await connection.run("""
                UPDATE rm_habits SET version = \(event.streamVersion), updated_at = \(event.recordedAt) WHERE owner_id = \(event.ownerId) AND habit_id = \(habitId)
                """, logger: logger)
        }
    }
}
