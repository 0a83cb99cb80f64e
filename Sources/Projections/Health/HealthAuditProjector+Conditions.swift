import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

// Conditions of the data, evaluated again where a batch can have changed them: gaps, and sources that disagree. The projector reads the figures; HealthAudit decides.
extension HealthAuditProjector {
    /// The newest date with any quantity data of the user: a day before it is a closed day.
    func latestDate(_ owner: UUID, on connection: PostgresConnection, logger: Logger) async throws -> LocalDate? {
        let rows = try await connection.rows(Self.latestDateQuery(owner), logger: logger)
        for try await text in rows.decode(String?.self) { return text.flatMap(LocalDate.init(_:)) }
        return nil
    }

    // The statements below read a handful of index entries per metric and day, however many items
    // the user has and however stale the statistics are: each newest date is an explicit
    // `ORDER BY … DESC LIMIT 1`, each "is there data" a scalar subquery with `LIMIT 1`. Written as
    // `max()` and `EXISTS`, PostgreSQL took the statistics of a table not yet analysed after a
    // first sync (rows = 1) at their word: it read all of a metric's items for every overlap row,
    // or hashed all of them for a gap check (4.3 s a statement at 300,000 steps; a third of the
    // machine during a year's first sync: `HealthAuditPlanTests`).

    static func latestDateQuery(_ owner: UUID) -> PostgresQuery {
        let names = HealthMetric.allCases.map(\.rawValue)
        return """
            SELECT max(latest)::text FROM unnest(\(names)::text[]) AS n(name),
              LATERAL (SELECT local_date AS latest FROM rm_health_records
                       WHERE owner_id = \(owner) AND kind = 'quantity' AND name = n.name ORDER BY local_date DESC LIMIT 1) AS m
            """
    }

    /// Gaps of a user, evaluated again where they can have changed: for each touched metric,
    /// its touched dates and the 30 after them (whose lookback holds them); and for every metric
    /// the user had in the last two months, the 31 days before their newest data (a day goes
    /// missing by data arriving after it, not by data for it). Only closed days count: up to
    /// the day before the user's newest data. Found gaps open (or reopen); cleared ones resolve.
    func evaluateGaps(owner: UUID, touched: Set<Touch>, on connection: PostgresConnection, logger: Logger) async throws {
        guard let latest = try await latestDate(owner, on: connection, logger: logger) else { return }
        let recent = try await recentMetrics(owner, latest: latest, on: connection, logger: logger)
        let byMetric = Dictionary(grouping: touched, by: \.metric).mapValues { $0.map(\.date) }
        for (metric, spans) in HealthAudit.gapSpans(touched: byMetric, recentMetrics: recent, latest: latest) {
            for span in spans {
                try await evaluateGaps(owner: owner, metric: metric, in: span, on: connection, logger: logger)
            }
        }
    }

    /// Quantity metrics with data in the 61 days up to `latest`.
    func recentMetrics(_ owner: UUID, latest: LocalDate, on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let rows = try await connection.rows(Self.recentMetricsQuery(owner, latest: latest), logger: logger)
        var found: [String] = []
        for try await name in rows.decode(String.self) { found.append(name) }
        return found
    }

    static func recentMetricsQuery(_ owner: UUID, latest: LocalDate) -> PostgresQuery {
        let names = HealthMetric.allCases.map(\.rawValue)
        return """
            SELECT n.name FROM unnest(\(names)::text[]) AS n(name)
            WHERE (SELECT true FROM rm_health_records r WHERE r.owner_id = \(owner) AND r.kind = 'quantity' AND r.name = n.name
                     AND r.local_date BETWEEN \(latest.adding(days: -61).description)::date AND \(latest.description)::date LIMIT 1)
            """
    }

    func evaluateGaps(owner: UUID, metric: String, in span: ClosedRange<Int>, on connection: PostgresConnection, logger: Logger) async throws {
        let (low, high) = (span.lowerBound, span.upperBound)
        var present = Set<Int>()
        let rows = try await connection.rows(
            Self.daysWithDataQuery(owner, metric: metric, from: LocalDate(daysSinceEpoch: low - HealthAudit.gapLookback),
                                   to: LocalDate(daysSinceEpoch: high)), logger: logger)
        for try await text in rows.decode(String.self) {
            if let date = LocalDate(text) { present.insert(date.daysSinceEpoch) }
        }
        let (found, cleared) = HealthAudit.gapFindings(metric: metric, present: present, in: span)
        try await upsert(found.map { Finding(owner: owner, $0) }, on: connection, logger: logger)
        try await resolve(owner: owner, keys: cleared, on: connection, logger: logger)
    }

    /// The dates from…to with any data of `metric`: an item, or a value the user entered.
    static func daysWithDataQuery(_ owner: UUID, metric: String, from: LocalDate, to: LocalDate) -> PostgresQuery {
        """
        SELECT d::date::text FROM generate_series(\(from.description)::date, \(to.description)::date, interval '1 day') AS d
        WHERE (SELECT true FROM rm_health_records r
               WHERE r.owner_id = \(owner) AND r.kind = 'quantity' AND r.name = \(metric) AND r.local_date = d::date LIMIT 1)
           OR (SELECT true FROM rm_health_manual m WHERE m.owner_id = \(owner) AND m.metric = \(metric) AND m.date = d::date LIMIT 1)
        """
    }

    /// What each pair of sources counted over their shared time on the touched dates, then per
    /// metric the pairs that disagree on at least 3 of the metric's last 7 days.
    func evaluateDivergence(_ touched: Set<Touch>, on connection: PostgresConnection, logger: Logger) async throws {
        let list = Array(touched)
        let (owners, names, dates) = (list.map(\.owner), list.map(\.metric), list.map(\.date.description))
        var samples: [Touch: [String: [CumulativeCredit.Sample]]] = [:]
        let rows = try await connection.rows("""
            SELECT r.owner_id, r.name, r.local_date::text, r.source_name, r.source_kind, r.start_s, r.end_s, r.value
            FROM unnest(\(owners)::uuid[], \(names)::text[], \(dates)::date[]) AS t(owner, name, date)
            JOIN rm_health_records r ON r.owner_id = t.owner AND r.kind = 'quantity' AND r.name = t.name AND r.local_date = t.date
                                    AND r.series = 'sample'
            """, logger: logger)
        // Cell by cell (`RowCells`), each date parsed once: every item of every touched day comes back.
        var parsed: [String: LocalDate] = [:]
        for row in rows.rows {
            var cells = RowCells(row)
            let owner = try cells.next(UUID.self), name = try cells.next(String.self), dateText = try cells.next(String.self)
            let source = try cells.next(String.self), kind = try cells.next(String.self), start = try cells.next(Int64.self)
            let end = try cells.next(Int64.self), value = try cells.next(Double?.self)
            try cells.end()
            guard let date = parsed[dateText] ?? LocalDate(dateText) else { throw CorruptData("health record date", dateText) }
            parsed[dateText] = date
            let sample = CumulativeCredit.Sample(value: value ?? 0, startSeconds: start, endSeconds: end,
                                                 source: HealthSource(name: source, kind: HealthSourceKind(rawValue: kind) ?? .app))
            samples[Touch(owner: owner, metric: name, date: date), default: [:]][source, default: []].append(sample)
        }
        struct Overlap: Encodable { var owner: UUID; var metric: String; var date: String; var sourceA: String; var sourceB: String
            var a: Double; var b: Double; var seconds: Int64 }
        var overlaps: [Overlap] = []
        for (touch, bySource) in samples {
            overlaps += HealthAudit.overlaps(bySource: bySource).map { pair in
                Overlap(owner: touch.owner, metric: touch.metric, date: touch.date.description, sourceA: pair.sourceA, sourceB: pair.sourceB,
                        a: pair.a, b: pair.b, seconds: pair.seconds)
            }
        }
        try await connection.run("""
            DELETE FROM rm_health_source_overlap o USING unnest(\(owners)::uuid[], \(names)::text[], \(dates)::date[]) AS t(owner, name, date)
            WHERE o.owner_id = t.owner AND o.metric = t.name AND o.date = t.date
            """, logger: logger)
        if !overlaps.isEmpty {
            try await connection.run("""
                INSERT INTO rm_health_source_overlap (owner_id, metric, date, source_a, source_b, a, b, seconds)
                SELECT owner, metric, date, source_a, source_b, a, b, seconds
                FROM jsonb_to_recordset(\(try EventCoding.encode(overlaps))::jsonb)
                  AS r(owner uuid, metric text, date date, source_a text, source_b text, a float8, b float8, seconds bigint)
                """, logger: logger)
        }
        for pair in Set(list.map { Touch(owner: $0.owner, metric: $0.metric, date: LocalDate(daysSinceEpoch: 0)) }) {
            try await evaluatePairs(owner: pair.owner, metric: pair.metric, on: connection, logger: logger)
        }
    }

    func evaluatePairs(owner: UUID, metric: String, on connection: PostgresConnection, logger: Logger) async throws {
        // The metric's last 7 days: up to its newest date with data.
        let rows = try await connection.rows(Self.recentOverlapsQuery(owner, metric: metric), logger: logger)
        var days: [HealthAudit.DayOverlap] = []
        for try await (dateText, a, b, countA, countB) in rows.decode((String, String, String, Double, Double).self) {
            guard let date = LocalDate(dateText) else { continue }
            days.append(HealthAudit.DayOverlap(date: date, sourceA: a, sourceB: b, a: countA, b: countB))
        }
        let found = HealthAudit.divergenceFindings(metric: metric, days).map { Finding(owner: owner, $0) }
        try await upsert(found, on: connection, logger: logger)
        // Every other pair of this metric's sources no longer disagrees often enough.
        try await connection.run("""
            UPDATE rm_health_findings SET status = 'resolved'
            WHERE owner_id = \(owner) AND type = 'source_divergence' AND metric = \(metric) AND status <> 'resolved'
              AND NOT (key = ANY(\(found.map(\.key))::text[]))
            """, logger: logger)
    }

    /// The overlaps of `metric`'s last days (`HealthAudit.divergenceWindow`), up to its newest date with data.
    static func recentOverlapsQuery(_ owner: UUID, metric: String) -> PostgresQuery {
        """
        WITH latest AS MATERIALIZED (
          SELECT (SELECT local_date FROM rm_health_records WHERE owner_id = \(owner) AND kind = 'quantity' AND name = \(metric)
                  ORDER BY local_date DESC LIMIT 1) AS day)
        SELECT o.date::text, o.source_a, o.source_b, o.a, o.b FROM rm_health_source_overlap o, latest
        WHERE o.owner_id = \(owner) AND o.metric = \(metric) AND o.date > latest.day - \(Int32(HealthAudit.divergenceWindow))::int AND o.date <= latest.day
        ORDER BY o.date
        """
    }
}
