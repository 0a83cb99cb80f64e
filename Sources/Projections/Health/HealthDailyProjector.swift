import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Async read models of each user's days (`rm_health_daily`) and nights (`rm_health_sleep`).
/// An event only says which days it touched; each touched day is computed again, whole, from
/// the items stored for it now (`rm_health_records`, the manual values, the source priority).
/// So the result never depends on how the log was cut into batches, and a rebuild equals it.
/// The recovery scores (`rm_health_recovery`) read those days and nights, so they are kept here,
/// in the same transaction, after them: a separate reader could score a date before its days.
public struct HealthDailyProjector: Projector {
    public let name = "health-daily"
    public let mode = ProjectorMode.async
    public let tables = ["rm_health_daily", "rm_health_sleep", "rm_health_recovery"]
    public let eventTypes: [String]? = HealthEvent.affectingDays
    /// Ingestion events carry up to 500 records each: a few dozen are a batch of bounded size.
    public let batchSize = 20

    public init() {}

    struct Day: Hashable {
        var owner: UUID
        var name: String
        var date: String
    }

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // Over 60 lines: gathers the days a batch touched, then recomputes them set-wise; one pass, read whole.
        var quantities = Set<Day>()
        var nights = Set<Day>()
        var everything = Set<UUID>()
        for event in events {
            switch event.type {
            case HealthEvent.RecordsStored.type, HealthEvent.RecordsDeleted.type:
                // Which days a batch touched: its items' and what they replaced (the log holds the payload sealed; this is it opened).
                guard let outline = HealthBatchOutline.read(try upcastPayload(event) ?? event.data) else {
                    throw CorruptData("health batch", event.type)
                }
                for item in outline.items + outline.replaced {
                    if item.kind == HealthRecord.Kind.quantity.rawValue { quantities.insert(Day(owner: event.ownerId, name: item.name, date: item.date)) }
                    if item.kind == HealthRecord.Kind.sleep.rawValue { nights.insert(Day(owner: event.ownerId, name: "", date: item.date)) }
                }
            case HealthEvent.ManualValueSet.type:
                let set = try decode(HealthEvent.ManualValueSet.self, event)
                quantities.insert(Day(owner: event.ownerId, name: set.metric.rawValue, date: set.date.description))
            case HealthEvent.ManualValueCleared.type:
                let cleared = try decode(HealthEvent.ManualValueCleared.self, event)
                quantities.insert(Day(owner: event.ownerId, name: cleared.metric.rawValue, date: cleared.date.description))
            case HealthEvent.SourcePriorityChanged.type:
                everything.insert(event.ownerId)
            default:
                continue
            }
        }
        if !everything.isEmpty {
            let all = Array(everything)
            let rows = try await connection.rows("""
                SELECT DISTINCT owner_id, kind, name, local_date::text FROM rm_health_records
                WHERE owner_id = ANY(\(all)::uuid[]) AND kind IN ('quantity', 'sleep')
                UNION SELECT owner_id, 'quantity', metric, date::text FROM rm_health_manual WHERE owner_id = ANY(\(all)::uuid[])
                """, logger: logger)
            for try await (owner, kind, name, date) in rows.decode((UUID, String, String, String).self) {
                if kind == HealthRecord.Kind.quantity.rawValue { quantities.insert(Day(owner: owner, name: name, date: date)) }
                if kind == HealthRecord.Kind.sleep.rawValue { nights.insert(Day(owner: owner, name: "", date: date)) }
            }
        }
        let ownersTouched = Set(quantities.map(\.owner)).union(nights.map(\.owner))
        guard !ownersTouched.isEmpty else { return }
        let priorities = try await HealthReadModel.priorities(Array(ownersTouched), on: connection, logger: logger)
        try await recomputeDays(quantities, priorities: priorities, on: connection, logger: logger)
        try await recomputeNights(nights, priorities: priorities, on: connection, logger: logger)
        let scored = quantities.filter { $0.name == HealthMetric.hrvSdnn.rawValue || $0.name == HealthMetric.restingHeartRate.rawValue }
        try await recomputeRecovery(changed: scored.union(nights), at: events.last?.recordedAt ?? .distantPast, on: connection, logger: logger)
    }

    private func recomputeDays(_ days: Set<Day>, priorities: [UUID: HealthSourcePriority], on connection: PostgresConnection, logger: Logger) async throws {
        guard !days.isEmpty else { return }
        let list = Array(days)
        let (owners, names, dates) = (list.map(\.owner), list.map(\.name), list.map(\.date))
        var samples: [Day: [CumulativeCredit.Sample]] = [:], summaries: [Day: [CumulativeCredit.Sample]] = [:]
        let rows = try await connection.rows("""
            SELECT r.owner_id, r.name, r.local_date::text, r.value, r.start_s, r.end_s, r.source_name, r.source_kind, r.series, r.min, r.max
            FROM unnest(\(owners)::uuid[], \(names)::text[], \(dates)::date[]) AS t(owner, name, date)
            JOIN rm_health_records r ON r.owner_id = t.owner AND r.kind = 'quantity' AND r.name = t.name AND r.local_date = t.date
            """, logger: logger)
        // Cell by cell (`RowCells`): a year's first sync reads each day's items back, a million rows.
        for row in rows.rows {
            var cells = RowCells(row)
            let owner = try cells.next(UUID.self), name = try cells.next(String.self), date = try cells.next(String.self)
            let value = try cells.next(Double?.self), start = try cells.next(Int64.self), end = try cells.next(Int64.self)
            let sourceName = try cells.next(String.self), sourceKind = try cells.next(String.self), series = try cells.next(String.self)
            let low = try cells.next(Double?.self), high = try cells.next(Double?.self)
            try cells.end()
            let sample = CumulativeCredit.Sample(
                value: value ?? 0, startSeconds: start, endSeconds: end,
                source: HealthSource(name: sourceName, kind: HealthSourceKind(rawValue: sourceKind) ?? .app), min: low, max: high)
            let day = Day(owner: owner, name: name, date: date)
            if series == HealthIntake.Series.summary.rawValue { summaries[day, default: []].append(sample) } else { samples[day, default: []].append(sample) }
        }
        var manual: [Day: Double] = [:]
        let manualRows = try await connection.rows("""
            SELECT m.owner_id, m.metric, m.date::text, m.value
            FROM unnest(\(owners)::uuid[], \(names)::text[], \(dates)::date[]) AS t(owner, name, date)
            JOIN rm_health_manual m ON m.owner_id = t.owner AND m.metric = t.name AND m.date = t.date
            """, logger: logger)
        for try await (owner, name, date, value) in manualRows.decode((UUID, String, String, Double).self) {
            manual[Day(owner: owner, name: name, date: date)] = value
        }
        var figures: [(UUID, HealthDay)] = []
        for day in list {
            guard let metric = HealthMetric(rawValue: day.name), let date = LocalDate(day.date) else { continue }
            if let figure = HealthDay.figure(
                metric: metric, date: date, samples: samples[day] ?? [], summaries: summaries[day] ?? [],
                manual: manual[day], priority: priorities[day.owner] ?? .default) {
                figures.append((day.owner, figure))
            }
        }
        try await connection.run("""
            DELETE FROM rm_health_daily d USING unnest(\(owners)::uuid[], \(names)::text[], \(dates)::date[]) AS t(owner, name, date)
            WHERE d.owner_id = t.owner AND d.metric = t.name AND d.date = t.date
            """, logger: logger)
        guard !figures.isEmpty else { return }
        let json = try EventCoding.encode(figures.map { DailyRow(owner: $0.0, day: $0.1) })
        try await connection.run("""
            INSERT INTO rm_health_daily (owner_id, metric, date, value, min, max, source, samples, decided_by)
            SELECT owner, (day ->> 'metric'), (day ->> 'date')::date, (day ->> 'value')::float8, (day ->> 'min')::float8,
                   (day ->> 'max')::float8, day ->> 'source', (day ->> 'samples')::int, day ->> 'decided_by'
            FROM jsonb_to_recordset(\(json)::jsonb) AS r(owner uuid, day jsonb)
            """, logger: logger)
    }

    private func recomputeNights(_ nights: Set<Day>, priorities: [UUID: HealthSourcePriority], on connection: PostgresConnection, logger: Logger) async throws {
        guard !nights.isEmpty else { return }
        let list = Array(nights)
        let (owners, dates) = (list.map(\.owner), list.map(\.date))
        var segments: [Day: [(SleepNight.Segment, HealthSource)]] = [:]
        let rows = try await connection.rows("""
            SELECT r.owner_id, r.local_date::text, r.name, r.start_s, r.end_s, r.source_name, r.source_kind
            FROM unnest(\(owners)::uuid[], \(dates)::date[]) AS t(owner, date)
            JOIN rm_health_records r ON r.owner_id = t.owner AND r.kind = 'sleep' AND r.local_date = t.date
            """, logger: logger)
        for try await (owner, date, stage, start, end, sourceName, sourceKind) in rows.decode(
            (UUID, String, String, Int64, Int64, String, String).self
        ) {
            guard let stage = SleepStage(rawValue: stage) else { continue }
            let source = HealthSource(name: sourceName, kind: HealthSourceKind(rawValue: sourceKind) ?? .app)
            segments[Day(owner: owner, name: "", date: date), default: []]
                .append((SleepNight.Segment(stage: stage, startSeconds: start, endSeconds: end), source))
        }
        var built: [NightRow] = []
        for night in list {
            guard let date = LocalDate(night.date),
                  let sleep = SleepNight.build(date: date, segments: segments[night] ?? [], priority: priorities[night.owner] ?? .default)
            else { continue }
            built.append(NightRow(owner: night.owner, night: sleep))
        }
        try await connection.run("""
            DELETE FROM rm_health_sleep s USING unnest(\(owners)::uuid[], \(dates)::date[]) AS t(owner, date)
            WHERE s.owner_id = t.owner AND s.date = t.date
            """, logger: logger)
        guard !built.isEmpty else { return }
        let json = try EventCoding.encode(built)
        try await connection.run("""
            INSERT INTO rm_health_sleep (owner_id, date, asleep_minutes, in_bed_minutes, awake_minutes, core_minutes, deep_minutes,
              rem_minutes, start_s, end_s, source, segments)
            SELECT owner, (night ->> 'date')::date, (night ->> 'asleep_minutes')::int, (night ->> 'in_bed_minutes')::int,
                   (night ->> 'awake_minutes')::int, (night ->> 'core_minutes')::int, (night ->> 'deep_minutes')::int,
                   (night ->> 'rem_minutes')::int, (night ->> 'start_seconds')::bigint, (night ->> 'end_seconds')::bigint,
                   night ->> 'source', night -> 'segments'
            FROM jsonb_to_recordset(\(json)::jsonb) AS r(owner uuid, night jsonb)
            """, logger: logger)
    }

    struct DailyRow: Encodable {
        var owner: UUID
        var day: HealthDay
    }

    struct NightRow: Encodable {
        var owner: UUID
        var night: SleepNight
    }
}
