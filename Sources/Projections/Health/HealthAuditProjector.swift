import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// The data-integrity audit (`rm_health_findings`), async. Findings of a request (too many
/// duplicates, late data, a mass deletion) come from what its events carry; conditions of the
/// data (a gap, two sources that disagree) are evaluated again for every metric and date a
/// batch touched, from the inline item rows, which are never behind the log. The rules are
/// `HealthAudit`'s.
public struct HealthAuditProjector: Projector {
    public let name = "health-audit"
    public let mode = ProjectorMode.async
    public let tables = ["rm_health_findings", "rm_health_source_overlap"]
    public let eventTypes: [String]? = [
        HealthEvent.RecordsStored.type, HealthEvent.RecordsDeleted.type, HealthEvent.ManualValueSet.type,
        HealthEvent.ManualValueCleared.type, HealthEvent.FindingAcknowledged.type,
    ]
    public let batchSize = 20

    public init() {}

    struct Touch: Hashable {
        var owner: UUID
        var metric: String
        var date: LocalDate
    }

    /// A finding as stored; `detectedAt` in seconds since 1970.
    struct Finding: Encodable {
        var owner: UUID
        var key: String
        var type: String
        var severity: String
        var metric: String?
        var fromDate: String
        var toDate: String
        var evidence: [String: Evidence]
        var detectedAt: Int64

        init(owner: UUID, key: String, type: HealthAudit.FindingType, metric: String?, from: LocalDate, to: LocalDate,
             evidence: [String: Evidence], detectedAt: Int64) {
            self.owner = owner
            self.key = key
            self.type = type.rawValue
            severity = type.severity.rawValue
            self.metric = metric
            fromDate = from.description
            toDate = to.description
            self.evidence = evidence
            self.detectedAt = detectedAt
        }
    }

    /// Evidence values: numbers, words, and lists of days.
    enum Evidence: Encodable {
        case number(Double)
        case text(String)
        case list([[String: Evidence]])
        case texts([String])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            case .list(let value): try container.encode(value)
            case .texts(let value): try container.encode(value)
            }
        }
    }

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // In log order: what came before an acknowledgement is applied before it.
        var pending = Pending()
        for event in events {
            switch event.type {
            case HealthEvent.RecordsStored.type:
                pending.requests.insert(Request(owner: event.ownerId, transaction: String(event.position.transactionId)))
            case HealthEvent.RecordsDeleted.type:
                let deleted = try decode(HealthEvent.RecordsDeleted.self, event)
                for removed in deleted.records where removed.kind == .quantity {
                    pending.touched.insert(Touch(owner: event.ownerId, metric: removed.name, date: removed.date))
                }
                pending.findings += massDeletions(deleted, owner: event.ownerId, transaction: event.position.transactionId)
            case HealthEvent.ManualValueSet.type:
                let set = try decode(HealthEvent.ManualValueSet.self, event)
                pending.touched.insert(Touch(owner: event.ownerId, metric: set.metric.rawValue, date: set.date))
            case HealthEvent.ManualValueCleared.type:
                let cleared = try decode(HealthEvent.ManualValueCleared.self, event)
                pending.touched.insert(Touch(owner: event.ownerId, metric: cleared.metric.rawValue, date: cleared.date))
            case HealthEvent.FindingAcknowledged.type:
                try await flush(&pending, on: connection, logger: logger)
                let id = try decode(HealthEvent.FindingAcknowledged.self, event).findingId
                try await connection.run("""
                    UPDATE rm_health_findings SET status = 'acknowledged' WHERE owner_id = \(event.ownerId) AND id = \(id) AND status = 'open'
                    """, logger: logger)
            default:
                continue
            }
        }
        try await flush(&pending, on: connection, logger: logger)
    }

    /// A request: its events share the transaction they were appended in.
    struct Request: Hashable {
        var owner: UUID
        var transaction: String
    }

    /// Work gathered from events, applied together.
    struct Pending {
        var requests = Set<Request>()
        var touched = Set<Touch>()
        var findings: [Finding] = []
    }

    func flush(_ pending: inout Pending, on connection: PostgresConnection, logger: Logger) async throws {
        if !pending.requests.isEmpty {
            let (found, touched) = try await storedFindings(Array(pending.requests), on: connection, logger: logger)
            pending.findings += found
            pending.touched.formUnion(touched)
        }
        try await upsert(pending.findings, on: connection, logger: logger)
        for owner in Set(pending.touched.map(\.owner)) {
            try await evaluateGaps(owner: owner, touched: pending.touched.filter { $0.owner == owner }, on: connection, logger: logger)
        }
        let cumulative = pending.touched.filter { HealthMetric(rawValue: $0.metric)?.dailyRule == .cumulative }
        if !cumulative.isEmpty { try await evaluateDivergence(cumulative, on: connection, logger: logger) }
        pending = Pending()
    }

    // MARK: Findings of a request

    /// Too many duplicates (from the request's intake) and late samples (by the time it
    /// arrived), one finding per request, and the metric dates its items touched. A request's
    /// events are read whole from the log (a batch may hold only some of them), so its findings
    /// never depend on where the reader's batches were cut.
    func storedFindings(_ requested: [Request], on connection: PostgresConnection, logger: Logger) async throws -> ([Finding], Set<Touch>) {
        var touched = Set<Touch>()
        struct Figures { var owner: UUID; var intake: (String, Int, Int)?; var receivedAt: Int64 = 0; var first: LocalDate?; var last: LocalDate?
            var late = 0; var lateFirst: LocalDate?; var lateLast: LocalDate?; var worst: Int64 = 0 }
        var requests: [String: Figures] = [:]
        let (owners, transactions) = (requested.map(\.owner), requested.map(\.transaction))
        // A request's figures added up in SQL (thousands of items, one row back), late by
        // `HealthAudit.arrivedLate`'s rule: ended more than `lateAfterSeconds` before arrival.
        let rows = try await connection.rows("""
            WITH e AS MATERIALIZED (
              -- Each event's payload read once: referenced per item, it was un-TOASTed per item.
              SELECT e.owner_id, e.transaction_id::text AS tx, e.data -> 'records' AS records, e.data -> 'intake' ->> 'format' AS format,
                     (e.data -> 'intake' ->> 'received')::bigint AS received, (e.data -> 'intake' ->> 'duplicates')::bigint AS duplicates,
                     coalesce((e.data ->> 'received_at')::bigint, 0) AS received_at
              FROM unnest(\(owners)::uuid[], \(transactions)::text[]) AS t(owner, tx)
              JOIN events e ON e.transaction_id = t.tx::xid8 AND e.owner_id = t.owner AND e.event_type = \(HealthEvent.RecordsStored.type))
            SELECT e.owner_id, e.tx, max(e.format), max(e.received), max(e.duplicates), max(e.received_at), min(r.date)::text, max(r.date)::text,
                   count(*) FILTER (WHERE late), (min(r.date) FILTER (WHERE late))::text, (max(r.date) FILTER (WHERE late))::text,
                   coalesce(max(e.received_at - r.end_seconds) FILTER (WHERE late), 0)
            FROM e, jsonb_to_recordset(e.records) AS r(date date, end_seconds bigint),
                 LATERAL (SELECT e.received_at > 0 AND e.received_at - r.end_seconds > \(HealthAudit.lateAfterSeconds) AS late) AS l
            GROUP BY e.owner_id, e.tx
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String?, Int64?, Int64?, Int64, String?, String?, Int64, String?, String?, Int64).self) {
            var request = Figures(owner: row.0)
            if let format = row.2, let received = row.3, let duplicates = row.4 { request.intake = (format, Int(received), Int(duplicates)) }
            request.receivedAt = row.5
            (request.first, request.last) = (row.6.flatMap(LocalDate.init(_:)), row.7.flatMap(LocalDate.init(_:)))
            (request.late, request.lateFirst, request.lateLast, request.worst) = (Int(row.8), row.9.flatMap(LocalDate.init(_:)), row.10.flatMap(LocalDate.init(_:)), row.11)
            requests[row.1] = request
        }
        // The metric dates the requests touched (what their items replaced included).
        let days = try await connection.rows("""
            SELECT DISTINCT e.owner_id, r.name, r.date::text
            FROM unnest(\(owners)::uuid[], \(transactions)::text[]) AS t(owner, tx)
            JOIN events e ON e.transaction_id = t.tx::xid8 AND e.owner_id = t.owner AND e.event_type = \(HealthEvent.RecordsStored.type),
                 jsonb_to_recordset(coalesce(e.data -> 'records', '[]') || coalesce(e.data -> 'replaced', '[]')) AS r(kind text, name text, date date)
            WHERE r.kind = \(HealthRecord.Kind.quantity.rawValue)
            """, logger: logger)
        for try await (owner, name, dateText) in days.decode((UUID, String, String).self) {
            guard let date = LocalDate(dateText) else { throw CorruptData("health record date", dateText) }
            touched.insert(Touch(owner: owner, metric: name, date: date))
        }
        var findings: [Finding] = []
        for (tx, request) in requests.sorted(by: { $0.key < $1.key }) {
            if let (format, received, duplicates) = request.intake, HealthAudit.tooManyDuplicates(received: received, duplicates: duplicates),
               let first = request.first, let last = request.last {
                findings.append(Finding(
                    owner: request.owner, key: "duplicates|\(tx)", type: .duplicates, metric: nil, from: first, to: last,
                    evidence: ["received": .number(Double(received)), "duplicates": .number(Double(duplicates)),
                               "percent": .number((100 * Double(duplicates) / Double(received)).rounded()), "format": .text(format)],
                    detectedAt: request.receivedAt))
            }
            if request.late > 0, let first = request.lateFirst, let last = request.lateLast {
                findings.append(Finding(
                    owner: request.owner, key: "historical_insertion|\(tx)", type: .historicalInsertion, metric: nil, from: first, to: last,
                    evidence: ["count": .number(Double(request.late)), "max_days_late": .number(Double(request.worst / 86_400))],
                    detectedAt: request.receivedAt))
            }
        }
        return (findings, touched)
    }

    /// One finding per metric whose old samples one deletion request cut by more than 10 %.
    func massDeletions(_ deleted: HealthEvent.RecordsDeleted, owner: UUID, transaction: UInt64) -> [Finding] {
        guard let receivedAt = deleted.receivedAt, let today = deleted.today else { return [] }
        let old = deleted.records.filter { $0.kind == .quantity && HealthAudit.isOld($0.date, today: today) }
        let before = Dictionary((deleted.storedBefore ?? []).map { ("\($0.name)|\($0.date)", $0.count) }, uniquingKeysWith: max)
        return Dictionary(grouping: old, by: \.name).sorted { $0.key < $1.key }.compactMap { name, removed in
            let dates = Set(removed.map(\.date)).sorted()
            let storedBefore = dates.reduce(0) { $0 + (before["\(name)|\($1)"] ?? 0) }
            guard HealthAudit.massDeletion(removed: removed.count, storedBefore: storedBefore), let first = dates.first, let last = dates.last else { return nil }
            return Finding(
                owner: owner, key: "mass_deletion|\(transaction)|\(name)", type: .massDeletion, metric: name, from: first, to: last,
                evidence: ["removed": .number(Double(removed.count)), "stored_before": .number(Double(storedBefore)),
                           "percent": .number((100 * Double(removed.count) / Double(storedBefore)).rounded()),
                           "dates": .texts(dates.map(\.description))],
                detectedAt: receivedAt)
        }
    }

    // MARK: Conditions of the data

    /// The newest date with any quantity data of the user: a day before it is a closed day.
    func latestDate(_ owner: UUID, on connection: PostgresConnection, logger: Logger) async throws -> LocalDate? {
        let names = HealthMetric.allCases.map(\.rawValue)
        let rows = try await connection.rows("""
            SELECT max(latest)::text FROM unnest(\(names)::text[]) AS n(name),
              LATERAL (SELECT max(local_date) AS latest FROM rm_health_records
                       WHERE owner_id = \(owner) AND kind = 'quantity' AND name = n.name) AS m
            """, logger: logger)
        for try await text in rows.decode(String?.self) { return text.flatMap(LocalDate.init(_:)) }
        return nil
    }

    /// Gaps of a user, evaluated again where they can have changed: for each touched metric,
    /// its touched dates and the 30 after them (whose lookback holds them); and for every metric
    /// the user had in the last two months, the 31 days before their newest data (a day goes
    /// missing by data arriving after it, not by data for it). Only closed days count: up to
    /// the day before the user's newest data. Found gaps open (or reopen); cleared ones resolve.
    func evaluateGaps(owner: UUID, touched: Set<Touch>, on connection: PostgresConnection, logger: Logger) async throws {
        guard let latest = try await latestDate(owner, on: connection, logger: logger) else { return }
        let closed = latest.daysSinceEpoch - 1
        let recent = (closed - HealthAudit.gapLookback)...closed
        var ranges: [String: [ClosedRange<Int>]] = [:]
        for (metric, days) in Dictionary(grouping: touched, by: \.metric) {
            guard let first = days.map(\.date).min(), let last = days.map(\.date).max() else { continue }
            let high = min(last.daysSinceEpoch + HealthAudit.gapLookback, closed)
            if first.daysSinceEpoch <= high { ranges[metric, default: []].append(first.daysSinceEpoch...high) }
        }
        for metric in try await recentMetrics(owner, latest: latest, on: connection, logger: logger) {
            ranges[metric, default: []].append(recent)
        }
        for (metric, spans) in ranges {
            for span in DaySpans.merged(spans) {
                try await evaluateGaps(owner: owner, metric: metric, in: span, on: connection, logger: logger)
            }
        }
    }

    /// Quantity metrics with data in the 61 days up to `latest`.
    func recentMetrics(_ owner: UUID, latest: LocalDate, on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let names = HealthMetric.allCases.map(\.rawValue)
        let rows = try await connection.rows("""
            SELECT n.name FROM unnest(\(names)::text[]) AS n(name)
            WHERE EXISTS (SELECT 1 FROM rm_health_records r WHERE r.owner_id = \(owner) AND r.kind = 'quantity' AND r.name = n.name
                            AND r.local_date BETWEEN \(latest.adding(days: -61).description)::date AND \(latest.description)::date)
            """, logger: logger)
        var found: [String] = []
        for try await name in rows.decode(String.self) { found.append(name) }
        return found
    }

    func evaluateGaps(owner: UUID, metric: String, in span: ClosedRange<Int>, on connection: PostgresConnection, logger: Logger) async throws {
        let (low, high) = (span.lowerBound, span.upperBound)
        var present = Set<Int>()
        let rows = try await connection.rows("""
            SELECT d::date::text FROM generate_series(\(LocalDate(daysSinceEpoch: low - HealthAudit.gapLookback).description)::date,
                                                      \(LocalDate(daysSinceEpoch: high).description)::date, interval '1 day') AS d
            WHERE EXISTS (SELECT 1 FROM rm_health_records r
                          WHERE r.owner_id = \(owner) AND r.kind = 'quantity' AND r.name = \(metric) AND r.local_date = d::date)
               OR EXISTS (SELECT 1 FROM rm_health_manual m WHERE m.owner_id = \(owner) AND m.metric = \(metric) AND m.date = d::date)
            """, logger: logger)
        for try await text in rows.decode(String.self) {
            if let date = LocalDate(text) { present.insert(date.daysSinceEpoch) }
        }
        let gaps = Set(HealthAudit.gaps(present: present, in: low...high))
        let found = gaps.sorted().map { day in
            let date = LocalDate(daysSinceEpoch: day)
            let usual = (1...HealthAudit.gapLookback).filter { present.contains(day - $0) }.count
            return Finding(owner: owner, key: "gap|\(metric)|\(date)", type: .gap, metric: metric, from: date, to: date,
                           evidence: ["days_with_data": .number(Double(usual)), "of_days": .number(Double(HealthAudit.gapLookback))],
                           detectedAt: Self.endOf(date))
        }
        try await upsert(found, on: connection, logger: logger)
        let cleared = (low...high).filter { !gaps.contains($0) }.map { "gap|\(metric)|\(LocalDate(daysSinceEpoch: $0))" }
        try await resolve(owner: owner, keys: cleared, on: connection, logger: logger)
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
        for try await (owner, name, dateText, source, kind, start, end, value) in rows.decode(
            (UUID, String, String, String, String, Int64, Int64, Double?).self
        ) {
            guard let date = LocalDate(dateText) else { throw CorruptData("health record date", dateText) }
            let sample = CumulativeCredit.Sample(value: value ?? 0, startSeconds: start, endSeconds: end,
                                                 source: HealthSource(name: source, kind: HealthSourceKind(rawValue: kind) ?? .app))
            samples[Touch(owner: owner, metric: name, date: date), default: [:]][source, default: []].append(sample)
        }
        struct Overlap: Encodable { var owner: UUID; var metric: String; var date: String; var sourceA: String; var sourceB: String
            var a: Double; var b: Double; var seconds: Int64 }
        var overlaps: [Overlap] = []
        for (touch, bySource) in samples {
            let sources = bySource.keys.sorted()
            for (i, a) in sources.enumerated() {
                for b in sources[(i + 1)...] {
                    guard let shared = HealthAudit.overlap(bySource[a] ?? [], bySource[b] ?? []) else { continue }
                    overlaps.append(Overlap(owner: touch.owner, metric: touch.metric, date: touch.date.description, sourceA: a, sourceB: b,
                                            a: shared.a, b: shared.b, seconds: shared.seconds))
                }
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
        let rows = try await connection.rows("""
            WITH latest AS (SELECT max(local_date) AS day FROM rm_health_records WHERE owner_id = \(owner) AND kind = 'quantity' AND name = \(metric))
            SELECT o.date::text, o.source_a, o.source_b, o.a, o.b FROM rm_health_source_overlap o, latest
            WHERE o.owner_id = \(owner) AND o.metric = \(metric) AND o.date > latest.day - \(Int32(HealthAudit.divergenceWindow))::int AND o.date <= latest.day
            ORDER BY o.date
            """, logger: logger)
        var byPair: [String: [(LocalDate, Double, Double)]] = [:]
        var names: [String: (String, String)] = [:]
        for try await (dateText, a, b, countA, countB) in rows.decode((String, String, String, Double, Double).self) {
            guard let date = LocalDate(dateText) else { continue }
            let key = "source_divergence|\(metric)|\(a)|\(b)"
            names[key] = (a, b)
            if HealthAudit.diverges(countA, countB) { byPair[key, default: []].append((date, countA, countB)) }
        }
        var found: [Finding] = []
        for (key, days) in byPair.sorted(by: { $0.key < $1.key }) where days.count >= HealthAudit.divergenceDays {
            guard let (a, b) = names[key], let first = days.first?.0, let last = days.last?.0 else { continue }
            let list: [[String: Evidence]] = days.map { date, countA, countB in
                ["date": .text(date.description), "a": .number((countA * 10).rounded() / 10), "b": .number((countB * 10).rounded() / 10),
                 "percent": .number((100 * abs(countA - countB) / max(countA, countB)).rounded())]
            }
            found.append(Finding(owner: owner, key: key, type: .sourceDivergence, metric: metric, from: first, to: last,
                                 evidence: ["source_a": .text(a), "source_b": .text(b), "diverging_days": .number(Double(days.count)),
                                            "days": .list(list)],
                                 detectedAt: Self.endOf(last)))
        }
        try await upsert(found, on: connection, logger: logger)
        // Every other pair of this metric's sources no longer disagrees often enough.
        try await connection.run("""
            UPDATE rm_health_findings SET status = 'resolved'
            WHERE owner_id = \(owner) AND type = 'source_divergence' AND metric = \(metric) AND status <> 'resolved'
              AND NOT (key = ANY(\(found.map(\.key))::text[]))
            """, logger: logger)
    }

    // MARK: Storage

    /// New findings open; one found again keeps its id and status, takes the new evidence,
    /// and reopens if it had resolved.
    func upsert(_ findings: [Finding], on connection: PostgresConnection, logger: Logger) async throws {
        guard !findings.isEmpty else { return }
        try await connection.run("""
            INSERT INTO rm_health_findings (owner_id, key, id, type, severity, metric, from_date, to_date, evidence, status, detected_at)
            SELECT owner, key, md5(owner::text || '|' || key)::uuid, type, severity, metric, from_date, to_date, evidence, 'open',
                   to_timestamp(detected_at)
            FROM jsonb_to_recordset(\(try EventCoding.encode(findings))::jsonb)
              AS f(owner uuid, key text, type text, severity text, metric text, from_date date, to_date date, evidence jsonb, detected_at bigint)
            ON CONFLICT (owner_id, key) DO UPDATE SET
              evidence = excluded.evidence, from_date = excluded.from_date, to_date = excluded.to_date,
              status = CASE WHEN rm_health_findings.status = 'resolved' THEN 'open' ELSE rm_health_findings.status END
            """, logger: logger)
    }

    func resolve(owner: UUID, keys: [String], on connection: PostgresConnection, logger: Logger) async throws {
        guard !keys.isEmpty else { return }
        try await connection.run("""
            UPDATE rm_health_findings SET status = 'resolved' WHERE owner_id = \(owner) AND key = ANY(\(keys)::text[]) AND status <> 'resolved'
            """, logger: logger)
    }

    /// A condition on a date is observable once the date is over: its detection time, the same
    /// in a rebuild (which reads the whole log at once) as when the auditor followed the log.
    static func endOf(_ date: LocalDate) -> Int64 { Int64(date.daysSinceEpoch + 1) * 86_400 }
}
