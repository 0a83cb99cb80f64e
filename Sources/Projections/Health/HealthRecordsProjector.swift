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

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            // The payload goes to PostgreSQL as it is stored: a batch of records is one statement,
            // with no decoding and encoding of thousands of records in between.
            let payload = try currentPayload(event)
            switch event.type {
            case HealthEvent.RecordsStored.type:
                try await connection.run("""
                    DELETE FROM rm_health_records h
                    USING jsonb_to_recordset(\(payload)::jsonb -> 'replaced') AS r(key text)
                    WHERE h.owner_id = \(event.ownerId) AND h.key = r.key
                    """, logger: logger)
                try await connection.run("""
                    INSERT INTO rm_health_records (owner_id, key, uuid, kind, name, value, start_s, end_s, local_date,
                      source_name, source_kind, source_bundle, series, energy_kcal, distance_m, avg_hr, device_id)
                    SELECT \(event.ownerId), r.key, r.uuid, r.kind, r.name, r.value, r.start_seconds, r.end_seconds, r.date,
                      r.source ->> 'name', r.source ->> 'kind', r.source ->> 'bundle_id', r.series,
                      (r.workout ->> 'active_energy_kcal')::float8, (r.workout ->> 'distance_m')::float8, (r.workout ->> 'avg_heart_rate')::float8,
                      (\(payload)::jsonb ->> 'device_id')::uuid
                    FROM jsonb_to_recordset(\(payload)::jsonb -> 'records') AS r(
                      key text, uuid text, kind text, name text, value float8, start_seconds bigint, end_seconds bigint, date date,
                      source jsonb, series text, workout jsonb)
                    ON CONFLICT (owner_id, key) DO UPDATE SET
                      uuid = excluded.uuid, kind = excluded.kind, name = excluded.name, value = excluded.value,
                      start_s = excluded.start_s, end_s = excluded.end_s, local_date = excluded.local_date,
                      source_name = excluded.source_name, source_kind = excluded.source_kind, source_bundle = excluded.source_bundle,
                      series = excluded.series, energy_kcal = excluded.energy_kcal, distance_m = excluded.distance_m,
                      avg_hr = excluded.avg_hr, device_id = excluded.device_id
                    """, logger: logger)
            case HealthEvent.RecordsDeleted.type:
                try await connection.run("""
                    DELETE FROM rm_health_records h
                    USING jsonb_to_recordset(\(payload)::jsonb -> 'records') AS r(key text)
                    WHERE h.owner_id = \(event.ownerId) AND h.key = r.key
                    """, logger: logger)
            default:
                continue
            }
        }
    }
}

extension Projector {
    /// An event's JSON in its type's current shape, for SQL that reads the payload itself.
    func currentPayload(_ event: RecordedEvent) throws -> String {
        let current = try EventUpcasting.upcaster.upcast(type: event.type, version: event.schemaVersion, data: Data(event.data.utf8))
        return String(decoding: current, as: UTF8.self)
    }
}
