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
            // The payload goes to PostgreSQL as the statement's parameter: the log holds it sealed.
            let upcast = try upcastPayload(event)
            let payload = upcast ?? event.data
            switch event.type {
            case HealthEvent.RecordsStored.type:
                // Most batches replace nothing: skip the statement then (as written, or as jsonb prints it).
                if upcast != nil || !(Self.contains(event.data, #""replaced":[]"#) || Self.contains(event.data, #""replaced": []"#)) {
                    try await connection.run("""
                        WITH p AS (SELECT \(payload)::jsonb AS j)
                        DELETE FROM rm_health_records h
                        USING p, jsonb_to_recordset(p.j -> 'replaced') AS r(key text)
                        WHERE h.owner_id = \(event.ownerId) AND h.key = r.key
                        """, logger: logger)
                }
                // The payload once, and the device id once: an expression of `p` in the select list
                // would fetch and detoast the whole payload again for every row.
                try await connection.run("""
                    WITH p AS MATERIALIZED (
                      SELECT j -> 'records' AS records, (j ->> 'device_id')::uuid AS device
                      FROM (SELECT \(payload)::jsonb AS j) payload)
                    INSERT INTO rm_health_records (owner_id, key, uuid, kind, name, value, start_s, end_s, local_date,
                      source_name, source_kind, source_bundle, series, energy_kcal, distance_m, avg_hr, device_id, min, max)
                    SELECT \(event.ownerId), r.key, r.uuid, r.kind, r.name, r.value, r.start_seconds, r.end_seconds, r.date,
                      r.source_name, r.source_kind, r.source_bundle_id, r.series, r.active_energy_kcal, r.distance_m, r.avg_heart_rate,
                      p.device, r.min, r.max
                    FROM p, jsonb_to_recordset(p.records) AS r(
                      key text, uuid text, kind text, name text, value float8, start_seconds bigint, end_seconds bigint, date date,
                      source_name text, source_kind text, source_bundle_id text, series text,
                      active_energy_kcal float8, distance_m float8, avg_heart_rate float8, min float8, max float8)
                    ON CONFLICT (owner_id, key) DO UPDATE SET
                      uuid = excluded.uuid, kind = excluded.kind, name = excluded.name, value = excluded.value,
                      start_s = excluded.start_s, end_s = excluded.end_s, local_date = excluded.local_date,
                      source_name = excluded.source_name, source_kind = excluded.source_kind, source_bundle = excluded.source_bundle,
                      series = excluded.series, energy_kcal = excluded.energy_kcal, distance_m = excluded.distance_m,
                      avg_hr = excluded.avg_hr, device_id = excluded.device_id, min = excluded.min, max = excluded.max
                    """, logger: logger)
            case HealthEvent.RecordsDeleted.type:
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
}

extension HealthRecordsProjector {
    /// A byte search of the payload: Foundation's `contains` copied the whole payload into UTF-16 first.
    static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text, needle = needle
        return text.withUTF8 { haystack in
            needle.withUTF8 { needle in
                guard let first = needle.first, haystack.count >= needle.count else { return false }
                var index = 0
                let last = haystack.count - needle.count
                while index <= last {
                    if haystack[index] == first, (1..<needle.count).allSatisfy({ haystack[index + $0] == needle[$0] }) { return true }
                    index += 1
                }
                return false
            }
        }
    }
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
