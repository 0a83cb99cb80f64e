import EventStore
import Foundation
import Logging
import PostgresNIO

/// Async read model `rm_owner_activity`: per owner and event type, a count and first/last times.
public struct OwnerActivityProjector: Projector {
    public let name = "owner_activity"
    public let mode = ProjectorMode.async
    public let tables = ["rm_owner_activity"]
    public let eventTypes: [String]? = nil

    public init() {}

    struct Key: Hashable, Comparable {
        var owner: UUID
        var type: String
        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.owner.uuidString, lhs.type) < (rhs.owner.uuidString, rhs.type)
        }
    }

    struct Activity {
        var count: Int64
        var first: Date
        var last: Date
    }

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        var activity: [Key: Activity] = [:]
        for event in events {
            let key = Key(owner: event.ownerId, type: event.type)
            if var existing = activity[key] {
                existing.count += 1
                existing.first = min(existing.first, event.recordedAt)
                existing.last = max(existing.last, event.recordedAt)
                activity[key] = existing
            } else {
                activity[key] = Activity(count: 1, first: event.recordedAt, last: event.recordedAt)
            }
        }
        let rows = activity.sorted { $0.key < $1.key }
        try await connection.run("""
            INSERT INTO rm_owner_activity AS a (owner_id, event_type, event_count, first_recorded_at, last_recorded_at)
            SELECT * FROM unnest(\(rows.map(\.key.owner))::uuid[], \(rows.map(\.key.type))::text[],
                                 \(rows.map(\.value.count))::bigint[], \(rows.map(\.value.first))::timestamptz[],
                                 \(rows.map(\.value.last))::timestamptz[])
            ON CONFLICT (owner_id, event_type) DO UPDATE SET
              event_count = a.event_count + excluded.event_count,
              first_recorded_at = LEAST(a.first_recorded_at, excluded.first_recorded_at),
              last_recorded_at = GREATEST(a.last_recorded_at, excluded.last_recorded_at)
            """, logger: logger)
    }
}
