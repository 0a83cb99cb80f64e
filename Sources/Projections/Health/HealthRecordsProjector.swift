import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model of every stored health item, one row per identity: what ingestion checks
/// for duplicates in the same transaction as its append, and what the day figures are made of.
public struct HealthRecordsProjector: Projector {
    public let name = "health-records"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_health_records"]
    public let eventTypes: [String]? = [HealthEvent.RecordsStored.type, HealthEvent.RecordsDeleted.type]

    public init() {}

    /// Records in one round from which the rows go in first as plain INSERTs.
    static let plainFirstFrom = 64
    /// Events whose columns are held at once: a rebuild's page holds thousands.
    static let eventsPerRound = 20

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for start in stride(from: 0, to: events.count, by: Self.eventsPerRound) {
            try await applyRound(Array(events[start..<min(start + Self.eventsPerRound, events.count)]), on: connection, logger: logger)
        }
    }

    private func applyRound(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        let batches = try events.map { event -> (RecordedEvent, HealthRecordColumns?) in
            // The log holds the payload sealed: this is it opened, in its type's current shape.
            guard event.type == HealthEvent.RecordsStored.type else { return (event, nil) }
            return (event, try HealthRecordColumns(json: try upcastPayload(event) ?? event.data))
        }
        let stored = batches.compactMap(\.1)
        // A first sync's batches were decided all new (`HealthEvent.RecordsStored.allNew`), and
        // this runs in the append's transaction, which the user's next batch waits for: their
        // rows go in as plain INSERTs, about a quarter less per row than the upsert, whose
        // speculative insertion checks each key first (1,000,000 rows: 13.5 s of PostgreSQL's
        // time as upserts). In a savepoint: should a key be there after all (a read model that
        // went wrong, rebuilt), the round is written again as upserts. Few records go straight
        // to the upsert: the savepoint's two round trips would cost them more than they save.
        guard !stored.isEmpty, stored.allSatisfy(\.allNew), stored.reduce(0, { $0 + $1.keys.count }) >= Self.plainFirstFrom else {
            return try await write(batches, upsert: true, on: connection, logger: logger)
        }
        try await connection.run("SAVEPOINT lifelog_health_records", logger: logger)
        do {
            try await write(batches, upsert: false, on: connection, logger: logger)
            try await connection.run("RELEASE SAVEPOINT lifelog_health_records", logger: logger)
        } catch where PostgresErrors.sqlState(error) == PostgresErrors.uniqueViolation {
            try await connection.run("ROLLBACK TO SAVEPOINT lifelog_health_records", logger: logger)
            try await write(batches, upsert: true, on: connection, logger: logger)
        }
    }

    private func write(_ batches: [(RecordedEvent, HealthRecordColumns?)], upsert: Bool, on connection: PostgresConnection, logger: Logger) async throws {
        for (event, columns) in batches {
            switch event.type {
            case HealthEvent.RecordsStored.type:
                guard let columns else { continue }
                // Most batches replace nothing: no statement then.
                if !columns.replacedKeys.isEmpty {
                    try await connection.run("""
                        DELETE FROM rm_health_records WHERE owner_id = \(event.ownerId) AND key = ANY(\(columns.replacedKeys)::text[])
                        """, logger: logger)
                }
                try await connection.run("""
                    INSERT INTO rm_health_records (owner_id, key, uuid, kind, name, value, start_s, end_s, local_date,
                      source_name, source_kind, source_bundle, series, energy_kcal, distance_m, avg_hr, device_id, min, max)
                    SELECT \(event.ownerId), r.key, r.uuid, r.kind, r.name, r.value, r.start_s, r.end_s, r.local_date,
                      r.source_name, r.source_kind, r.source_bundle, r.series, r.energy_kcal, r.distance_m, r.avg_hr,
                      \(columns.device)::uuid, r.min, r.max
                    FROM unnest(\(columns.keys)::text[], \(NullableArray(columns.uuids))::text[], \(columns.kinds)::text[],
                                \(columns.names)::text[], \(NullableArray(columns.values))::float8[], \(columns.starts)::int8[],
                                \(columns.ends)::int8[], \(columns.dates)::date[], \(columns.sourceNames)::text[], \(columns.sourceKinds)::text[],
                                \(NullableArray(columns.bundles))::text[], \(columns.series)::text[], \(NullableArray(columns.energies))::float8[],
                                \(NullableArray(columns.distances))::float8[], \(NullableArray(columns.heartRates))::float8[],
                                \(NullableArray(columns.lows))::float8[], \(NullableArray(columns.highs))::float8[])
                      AS r(key, uuid, kind, name, value, start_s, end_s, local_date, source_name, source_kind, source_bundle, series,
                           energy_kcal, distance_m, avg_hr, min, max)
                    \(unescaped: upsert ? Self.updateOnConflict : "")
                    """, logger: logger)
            case HealthEvent.RecordsDeleted.type:
                let payload = try upcastPayload(event) ?? event.data
                try await connection.run("""
                    WITH p AS (SELECT \(payload)::jsonb AS j)
                    DELETE FROM rm_health_records h
                    USING p, jsonb_to_recordset(p.j -> 'records') AS r(key text)
                    WHERE h.owner_id = \(event.ownerId) AND h.key = r.key
                    """, logger: logger)
            default:
                continue
            }
        }
    }

    /// The upsert's clause: a constant, never a value.
    static let updateOnConflict = """
        ON CONFLICT (owner_id, key) DO UPDATE SET
          uuid = excluded.uuid, kind = excluded.kind, name = excluded.name, value = excluded.value,
          start_s = excluded.start_s, end_s = excluded.end_s, local_date = excluded.local_date,
          source_name = excluded.source_name, source_kind = excluded.source_kind, source_bundle = excluded.source_bundle,
          series = excluded.series, energy_kcal = excluded.energy_kcal, distance_m = excluded.distance_m,
          avg_hr = excluded.avg_hr, device_id = excluded.device_id, min = excluded.min, max = excluded.max
        """
}

extension Projector {
    /// An event's JSON in its type's current shape, for SQL that reads the payload as a parameter.
    func currentPayload(_ event: RecordedEvent) throws -> String {
        let current = try EventUpcasting.upcaster.upcast(type: event.type, version: event.schemaVersion, data: Data(event.data.utf8))
        return String(decoding: current, as: UTF8.self)
    }

    /// The upcast JSON of an event stored in an older shape; nil when the stored payload is
    /// current, and can be sent as it is.
    func upcastPayload(_ event: RecordedEvent) throws -> String? {
        event.schemaVersion == EventUpcasting.upcaster.currentVersion(of: event.type) ? nil : try currentPayload(event)
    }
}
