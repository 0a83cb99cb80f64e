import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model of a user's manual day values, source priority and morning check-ins.
public struct HealthSettingsProjector: Projector {
    public let name = "health-settings"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_health_manual", "rm_health_settings", "rm_health_checkins"]
    public let eventTypes: [String]? = [
        HealthEvent.ManualValueSet.type, HealthEvent.ManualValueCleared.type, HealthEvent.SourcePriorityChanged.type,
        HealthEvent.CheckInRecorded.type,
    ]

    public init() {}

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            let owner = event.ownerId
            switch event.type {
            case HealthEvent.ManualValueSet.type:
                let set = try decode(HealthEvent.ManualValueSet.self, event)
                try await connection.run("""
                    INSERT INTO rm_health_manual (owner_id, metric, date, value)
                    VALUES (\(owner), \(set.metric.rawValue), \(set.date.description)::date, \(set.value))
                    ON CONFLICT (owner_id, metric, date) DO UPDATE SET value = excluded.value
                    """, logger: logger)
            case HealthEvent.ManualValueCleared.type:
                let cleared = try decode(HealthEvent.ManualValueCleared.self, event)
                try await connection.run("""
                    DELETE FROM rm_health_manual WHERE owner_id = \(owner) AND metric = \(cleared.metric.rawValue) AND date = \(cleared.date.description)::date
                    """, logger: logger)
            case HealthEvent.SourcePriorityChanged.type:
                let changed = try decode(HealthEvent.SourcePriorityChanged.self, event)
                try await connection.run("""
                    INSERT INTO rm_health_settings (owner_id, priority) VALUES (\(owner), \(changed.priority.order.map(\.rawValue)))
                    ON CONFLICT (owner_id) DO UPDATE SET priority = excluded.priority
                    """, logger: logger)
            case HealthEvent.CheckInRecorded.type:
                let checkIn = try decode(HealthEvent.CheckInRecorded.self, event)
                try await connection.run("""
                    INSERT INTO rm_health_checkins (owner_id, date, feeling, note)
                    VALUES (\(owner), \(checkIn.date.description)::date, \(Int16(checkIn.feeling)), \(checkIn.note))
                    ON CONFLICT (owner_id, date) DO UPDATE SET feeling = excluded.feeling, note = excluded.note
                    """, logger: logger)
            default:
                continue
            }
        }
    }
}
