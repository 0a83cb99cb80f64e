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

    /// A finding of one user, as stored; `detectedAt` in seconds since 1970.
    struct Finding: Encodable {
        var owner: UUID
        var key: String
        var type: String
        var severity: String
        var metric: String?
        var fromDate: String
        var toDate: String
        var evidence: [String: HealthAudit.Evidence]
        var detectedAt: Int64

        init(owner: UUID, _ finding: HealthAudit.Finding) {
            self.owner = owner
            key = finding.key
            type = finding.type.rawValue
            severity = finding.type.severity.rawValue
            metric = finding.metric
            fromDate = finding.from.description
            toDate = finding.to.description
            evidence = finding.evidence
            detectedAt = finding.detectedAt
        }
    }

    /// It reads each request's events whole from the log, so it needs the keyring: runners call
    /// `apply(_:keyring:on:logger:)`.
    public struct NeedsTheKeyring: Error {}

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        throw NeedsTheKeyring()
    }

    public func apply(_ events: [RecordedEvent], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws {
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
                pending.findings += HealthAudit.massDeletions(deleted, transaction: event.position.transactionId)
                    .map { Finding(owner: event.ownerId, $0) }
            case HealthEvent.ManualValueSet.type:
                let set = try decode(HealthEvent.ManualValueSet.self, event)
                pending.touched.insert(Touch(owner: event.ownerId, metric: set.metric.rawValue, date: set.date))
            case HealthEvent.ManualValueCleared.type:
                let cleared = try decode(HealthEvent.ManualValueCleared.self, event)
                pending.touched.insert(Touch(owner: event.ownerId, metric: cleared.metric.rawValue, date: cleared.date))
            case HealthEvent.FindingAcknowledged.type:
                try await flush(&pending, keyring: keyring, on: connection, logger: logger)
                let id = try decode(HealthEvent.FindingAcknowledged.self, event).findingId
                try await connection.run("""
                    UPDATE rm_health_findings SET status = 'acknowledged' WHERE owner_id = \(event.ownerId) AND id = \(id) AND status = 'open'
                    """, logger: logger)
            default:
                continue
            }
        }
        try await flush(&pending, keyring: keyring, on: connection, logger: logger)
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

    func flush(_ pending: inout Pending, keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws {
        if !pending.requests.isEmpty {
            let (found, touched) = try await storedFindings(Array(pending.requests), keyring: keyring, on: connection, logger: logger)
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
    func storedFindings(
        _ requested: [Request], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger
    ) async throws -> ([Finding], Set<Touch>) {
        var touched = Set<Touch>()
        var requests: [String: (owner: UUID, figures: HealthAudit.RequestFigures)] = [:]
        // The requests' events, opened here: the log holds them sealed.
        let stored = try await PostgresEventStore.readEvents(
            transactions: requested.map { ($0.owner, $0.transaction) }, type: HealthEvent.RecordsStored.type, keyring: keyring,
            on: connection, logger: logger).filter { !$0.shredded }
        // A request's figures added up over its events' items, late by `HealthAudit.arrivedLate`'s
        // rule: ended more than `lateAfterSeconds` before arrival. An event without items adds nothing.
        var dates: [String: LocalDate] = [:]
        func date(_ text: String) throws -> LocalDate {
            if let known = dates[text] { return known }
            guard let parsed = LocalDate(text) else { throw CorruptData("health record date", text) }
            dates[text] = parsed
            return parsed
        }
        for event in stored {
            guard let outline = HealthBatchOutline.read(try upcastPayload(event) ?? event.data) else {
                throw CorruptData("health batch", event.type)
            }
            for item in outline.items + outline.replaced where item.kind == HealthRecord.Kind.quantity.rawValue {
                touched.insert(Touch(owner: event.ownerId, metric: item.name, date: try date(item.date)))
            }
            guard !outline.items.isEmpty else { continue }
            let tx = String(event.position.transactionId)
            var figures = requests[tx]?.figures ?? HealthAudit.RequestFigures(
                intake: nil, receivedAt: 0, first: nil, last: nil, late: 0, lateFirst: nil, lateLast: nil, worst: 0)
            if let format = outline.format, let received = outline.received.map(Int.init), let duplicates = outline.duplicates.map(Int.init) {
                let before = figures.intake ?? (format, received, duplicates)
                figures.intake = (max(before.format, format), max(before.received, received), max(before.duplicates, duplicates))
            }
            figures.receivedAt = max(figures.receivedAt, outline.receivedAt)
            for item in outline.items {
                let date = try date(item.date)
                guard let end = item.endSeconds else { throw CorruptData("health record", item.date) }
                figures.first = min(figures.first ?? date, date)
                figures.last = max(figures.last ?? date, date)
                guard outline.receivedAt > 0, HealthAudit.arrivedLate(receivedAt: outline.receivedAt, end: end) else { continue }
                figures.late += 1
                figures.lateFirst = min(figures.lateFirst ?? date, date)
                figures.lateLast = max(figures.lateLast ?? date, date)
                figures.worst = max(figures.worst, outline.receivedAt - end)
            }
            requests[tx] = (event.ownerId, figures)
        }
        let findings = requests.sorted(by: { $0.key < $1.key }).flatMap { tx, request in
            HealthAudit.requestFindings(transaction: tx, request.figures).map { Finding(owner: request.owner, $0) }
        }
        return (findings, touched)
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
}
