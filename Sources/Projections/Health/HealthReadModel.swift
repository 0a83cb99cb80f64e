import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Reads of the health read models.
public struct HealthReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The stored items a batch's items could be (same key or uuid), and the user's health
    /// stream version, from one snapshot: the rows are what the version says.
    public func decisionState(_ owner: UUID, streamId: String, keys: [String], uuids: [String]) async throws -> (records: [HealthRecord], version: Int64) {
        var version: Int64 = 0
        var records: [HealthRecord] = []
        records.reserveCapacity(keys.count)
        let rows = try await client.rows(Self.decisionStateQuery(owner, streamId: streamId, keys: keys, uuids: uuids), logger: logger)
        // The date as days since 1970: a re-sent batch reads back every item, and parsing
        // thousands of date strings per batch showed in its profile.
        for row in rows.rows {
            var cells = RowCells(row)
            version = try cells.next(Int64.self)
            guard let key = try cells.next(String?.self) else { continue }
            let uuid = try cells.next(String?.self), kindText = try cells.next(String?.self), name = try cells.next(String?.self)
            let value = try cells.next(Double?.self), start = try cells.next(Int64?.self), end = try cells.next(Int64?.self)
            let days = try cells.next(Int32?.self), sourceName = try cells.next(String?.self), sourceKind = try cells.next(String?.self)
            let bundleId = try cells.next(String?.self), seriesText = try cells.next(String?.self)
            let energy = try cells.next(Double?.self), distance = try cells.next(Double?.self), heartRate = try cells.next(Double?.self)
            let low = try cells.next(Double?.self), high = try cells.next(Double?.self)
            try cells.end()
            guard let kindText, let kind = HealthRecord.Kind(rawValue: kindText), let name, let start, let end, let days, let sourceName,
                  let sourceKind, let seriesText, let series = HealthIntake.Series(rawValue: seriesText) else { continue }
            let source = HealthSource(name: sourceName, kind: HealthSourceKind(rawValue: sourceKind) ?? .app, bundleId: bundleId)
            records.append(HealthRecord(
                storedKey: key, uuid: uuid, kind: kind, name: name, value: value, startSeconds: start, endSeconds: end,
                date: LocalDate(daysSinceEpoch: Int(days)),
                source: source, series: series,
                workout: kind == .workout ? .init(activeEnergyKcal: energy, distanceM: distance, avgHeartRate: heartRate) : nil,
                min: low, max: high))
        }
        return (records, version)
    }

    /// The lookup behind `decisionState`: one index probe per key and per uuid. An item found
    /// both ways is sent once, by key (a re-sent batch names every item both ways, and reading
    /// its rows is most of a re-send's work); one its uuid alone finds (an edit that moved it to
    /// another key) comes by uuid. As `key = ANY(…)`, or as a join,
    /// PostgreSQL chose to scan every stored item of the user once it had some hundred thousand,
    /// or when its statistics lagged behind an import or a new user's first sync (a 10,000-item
    /// batch took 14.6 s, a 49,000-item re-send held a core for minutes: issue 24). A LATERAL
    /// subquery with a LIMIT is not flattened into a join: it stays one probe per key (both are
    /// unique), whatever the statistics say (`HealthLookupPlanTests`).
    public static func decisionStateQuery(_ owner: UUID, streamId: String, keys: [String], uuids: [String]) -> PostgresQuery {
        """
        WITH v AS (SELECT coalesce((SELECT version FROM streams WHERE stream_id = \(streamId)), 0) AS version),
        p AS (SELECT \(keys)::text[] AS keys),  -- named twice, so materialized: the planner cannot see how many keys, and hashes them below
        found AS (
          SELECT r.* FROM p, unnest(p.keys) AS k(key),
            LATERAL (SELECT * FROM rm_health_records h WHERE h.owner_id = \(owner) AND h.key = k.key LIMIT 1) r
          UNION ALL
          SELECT r.* FROM unnest(\(uuids)::text[]) AS u(uuid),
            LATERAL (SELECT * FROM rm_health_records h WHERE h.owner_id = \(owner) AND h.uuid = u.uuid LIMIT 1) r
          WHERE r.key NOT IN (SELECT unnest(p.keys) FROM p))
        SELECT v.version, r.key, r.uuid, r.kind, r.name, r.value, r.start_s, r.end_s, r.local_date - DATE '1970-01-01', r.source_name,
               r.source_kind, r.source_bundle, r.series, r.energy_kcal, r.distance_m, r.avg_hr, r.min, r.max
        FROM v LEFT JOIN found r ON true
        """
    }

    /// Items stored per "metric|date" on the days of the items with these uuids.
    public func storedOnDates(_ owner: UUID, uuids: [String]) async throws -> [String: Int] {
        var found: [String: Int] = [:]
        let rows = try await client.rows(Self.storedOnDatesQuery(owner, uuids: uuids), logger: logger)
        for try await (name, date, count) in rows.decode((String, String, Int64).self) { found["\(name)|\(date)"] = Int(count) }
        return found
    }

    /// The lookup behind `storedOnDates`: the items found one probe per uuid, as above, then a
    /// count per day along the day index.
    public static func storedOnDatesQuery(_ owner: UUID, uuids: [String]) -> PostgresQuery {
        """
        SELECT d.name, d.local_date::text, (SELECT count(*) FROM rm_health_records c
                                            WHERE c.owner_id = \(owner) AND c.kind = d.kind AND c.name = d.name AND c.local_date = d.local_date)
        FROM (SELECT DISTINCT r.kind, r.name, r.local_date FROM unnest(\(uuids)::text[]) AS u(uuid),
                LATERAL (SELECT kind, name, local_date FROM rm_health_records h WHERE h.owner_id = \(owner) AND h.uuid = u.uuid LIMIT 1) r) AS d
        """
    }

    /// The position of the last event of a stream (what a client waits for after a write that
    /// found nothing new to store), nil when the stream has none.
    public func lastPosition(ofStream streamId: String) async throws -> LogPosition? {
        let rows = try await client.rows("""
            SELECT transaction_id::text, global_position FROM events WHERE stream_id = \(streamId) ORDER BY stream_version DESC LIMIT 1
            """, logger: logger)
        for try await (tx, position) in rows.decode((String, Int64).self) {
            return try LogPosition(transactionText: tx, globalPosition: position)
        }
        return nil
    }

    /// How far the day and night read models have read the log.
    public func daysPosition() async throws -> LogPosition {
        try await client.withConnection { connection in
            try await Checkpoints.read(HealthDailyProjector().name, on: connection, logger: logger)
        }
    }

    public func days(_ owner: UUID, from: LocalDate, to: LocalDate, metrics: [HealthMetric]) async throws -> [HealthDay] {
        let names = metrics.map(\.rawValue)
        var days: [HealthDay] = []
        let rows = try await client.rows("""
            SELECT date::text, metric, value, min, max, source, samples, decided_by FROM rm_health_daily
            WHERE owner_id = \(owner) AND date BETWEEN \(from.description)::date AND \(to.description)::date AND metric = ANY(\(names)::text[])
            ORDER BY rm_health_daily.date, metric
            """, logger: logger)
        for try await (date, metric, value, min, max, source, samples, decidedBy) in rows.decode(
            (String, String, Double, Double?, Double?, String?, Int32, String).self
        ) {
            guard let date = LocalDate(date), let metric = HealthMetric(rawValue: metric),
                  let decided = HealthDay.DecidedBy(rawValue: decidedBy) else { continue }
            days.append(HealthDay(date: date, metric: metric, value: value, min: min, max: max, source: source,
                                  samples: Int(samples), decidedBy: decided))
        }
        return days
    }

    public func nights(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [SleepNight] {
        var nights: [SleepNight] = []
        let rows = try await client.rows("""
            SELECT date::text, asleep_minutes, in_bed_minutes, awake_minutes, core_minutes, deep_minutes, rem_minutes, start_s, end_s,
                   source, segments::text
            FROM rm_health_sleep WHERE owner_id = \(owner) AND date BETWEEN \(from.description)::date AND \(to.description)::date
            ORDER BY rm_health_sleep.date
            """, logger: logger)
        for try await row in rows.decode((String, Int32, Int32, Int32, Int32, Int32, Int32, Int64, Int64, String, String).self) {
            guard let date = LocalDate(row.0) else { continue }
            let segments = try EventCoding.decode([SleepNight.Segment].self, from: row.10)
            nights.append(SleepNight(
                date: date, asleepMinutes: Int(row.1), inBedMinutes: Int(row.2), awakeMinutes: Int(row.3), coreMinutes: Int(row.4),
                deepMinutes: Int(row.5), remMinutes: Int(row.6), startSeconds: row.7, endSeconds: row.8, source: row.9, segments: segments))
        }
        return nights
    }

    /// Workouts that start on the dates, every source's (merging is the caller's, by priority).
    public func workouts(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [HealthRecord] {
        var found: [HealthRecord] = []
        let rows = try await client.rows("""
            SELECT uuid, name, start_s, end_s, local_date::text, source_name, source_kind, source_bundle, energy_kcal, distance_m, avg_hr
            FROM rm_health_records
            WHERE owner_id = \(owner) AND kind = 'workout' AND local_date BETWEEN \(from.description)::date AND \(to.description)::date
            """, logger: logger)
        for try await row in rows.decode((String?, String, Int64, Int64, String, String, String, String?, Double?, Double?, Double?).self) {
            guard let date = LocalDate(row.4) else { continue }
            found.append(HealthRecord(
                uuid: row.0, kind: .workout, name: row.1, value: nil, startSeconds: row.2, endSeconds: row.3, date: date,
                source: HealthSource(name: row.5, kind: HealthSourceKind(rawValue: row.6) ?? .app, bundleId: row.7), series: .sample,
                workout: .init(activeEnergyKcal: row.8, distanceM: row.9, avgHeartRate: row.10)))
        }
        return found
    }

    public struct Latest: Sendable {
        public var metric: HealthMetric
        public var value: Double
        public var start: Int64
        public var end: Int64
        public var source: String
    }

    /// The newest reading of each metric.
    public func latest(_ owner: UUID) async throws -> [Latest] {
        var found: [Latest] = []
        let rows = try await client.rows("""
            SELECT DISTINCT ON (name) name, value, start_s, end_s, source_name FROM rm_health_records
            WHERE owner_id = \(owner) AND kind = 'quantity' AND value IS NOT NULL
            ORDER BY name, end_s DESC, start_s DESC, key
            """, logger: logger)
        for try await (name, value, start, end, source) in rows.decode((String, Double, Int64, Int64, String).self) {
            guard let metric = HealthMetric(rawValue: name) else { continue }
            found.append(Latest(metric: metric, value: value, start: start, end: end, source: source))
        }
        return found
    }

    public func priority(_ owner: UUID) async throws -> HealthSourcePriority {
        try await client.withConnection { connection in
            try await Self.priorities([owner], on: connection, logger: logger)[owner] ?? .default
        }
    }

    /// Each user's source priority (the default for users who never set one).
    public static func priorities(_ owners: [UUID], on connection: PostgresConnection, logger: Logger) async throws -> [UUID: HealthSourcePriority] {
        var found: [UUID: HealthSourcePriority] = [:]
        let rows = try await connection.rows("""
            SELECT owner_id, priority FROM rm_health_settings WHERE owner_id = ANY(\(owners)::uuid[])
            """, logger: logger)
        for try await (owner, order) in rows.decode((UUID, [String]).self) {
            found[owner] = HealthSourcePriority(order: order.compactMap(HealthSourceKind.init(rawValue:)))
        }
        return found
    }

    /// The manual values of a user's health settings stream, for its decider.
    public func manualValues(_ owner: UUID) async throws -> Set<String> {
        var found = Set<String>()
        let rows = try await client.rows("SELECT metric, date::text FROM rm_health_manual WHERE owner_id = \(owner)", logger: logger)
        for try await (metric, date) in rows.decode((String, String).self) { found.insert("\(metric)|\(date)") }
        return found
    }
}
