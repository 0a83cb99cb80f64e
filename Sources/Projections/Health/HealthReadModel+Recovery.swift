import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Reads of the recovery scores and check-ins.
extension HealthReadModel {
    public struct CheckIn: Sendable, Equatable {
        public var date: LocalDate
        public var feeling: Int
        public var note: String?
    }

    /// The `recovery-v1` score of every date from…to. Dates the projector stored (those with a
    /// figure of their own) come from `rm_health_recovery`; the others have no figure, and are
    /// scored from the same inputs as "no data" with their baselines as they stand.
    public func recovery(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [RecoveryScore] {
        var stored: [LocalDate: RecoveryScore] = [:]
        let rows = try await client.rows("""
            SELECT date::text, result::text FROM rm_health_recovery
            WHERE owner_id = \(owner) AND formula_version = \(RecoveryFormula.version)
              AND date BETWEEN \(from.description)::date AND \(to.description)::date
            """, logger: logger)
        for try await (dateText, result) in rows.decode((String, String).self) {
            guard let date = LocalDate(dateText) else { throw CorruptData("recovery date", dateText) }
            stored[date] = try EventCoding.decode(RecoveryScore.self, from: result)
        }
        let dates = (from.daysSinceEpoch...to.daysSinceEpoch).map(LocalDate.init(daysSinceEpoch:))
        let missing = dates.filter { stored[$0] == nil }
        if let first = missing.first, let last = missing.last {
            let inputs = try await client.withConnection { connection in
                try await Self.recoveryInputs(owners: [owner], from: [first.adding(days: -RecoveryFormula.baselineLength)], to: [last],
                                              on: connection, logger: logger)
            }[owner] ?? RecoveryInputs()
            for date in missing {
                // Only the baselines: a figure for the date itself is the projector's to score.
                stored[date] = RecoveryFormula.score(date: date, inputs: inputs, ownFigures: false)
            }
        }
        return dates.compactMap { stored[$0] }
    }

    public func checkIns(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [LocalDate: CheckIn] {
        var found: [LocalDate: CheckIn] = [:]
        let rows = try await client.rows("""
            SELECT date::text, feeling, note FROM rm_health_checkins
            WHERE owner_id = \(owner) AND date BETWEEN \(from.description)::date AND \(to.description)::date
            """, logger: logger)
        for try await (dateText, feeling, note) in rows.decode((String, Int16, String?).self) {
            guard let date = LocalDate(dateText) else { throw CorruptData("check-in date", dateText) }
            found[date] = CheckIn(date: date, feeling: Int(feeling), note: note)
        }
        return found
    }

    /// What the recovery formula reads, per owner, for the dates from…to (both included): the
    /// nights' asleep minutes and the days' HRV and resting heart rate figures.
    static func recoveryInputs(
        owners: [UUID], from: [LocalDate], to: [LocalDate], on connection: PostgresConnection, logger: Logger
    ) async throws -> [UUID: RecoveryInputs] {
        var found: [UUID: RecoveryInputs] = [:]
        let (fromText, toText) = (from.map(\.description), to.map(\.description))
        let metrics = [HealthMetric.hrvSdnn.rawValue, HealthMetric.restingHeartRate.rawValue]
        let rows = try await connection.rows("""
            SELECT t.owner, 'sleep', s.date::text, s.asleep_minutes::float8
            FROM unnest(\(owners)::uuid[], \(fromText)::date[], \(toText)::date[]) AS t(owner, first, last)
            JOIN rm_health_sleep s ON s.owner_id = t.owner AND s.date BETWEEN t.first AND t.last
            UNION ALL
            SELECT t.owner, d.metric, d.date::text, d.value
            FROM unnest(\(owners)::uuid[], \(fromText)::date[], \(toText)::date[]) AS t(owner, first, last)
            JOIN rm_health_daily d ON d.owner_id = t.owner AND d.date BETWEEN t.first AND t.last AND d.metric = ANY(\(metrics)::text[])
            """, logger: logger)
        for try await (owner, name, dateText, value) in rows.decode((UUID, String, String, Double).self) {
            guard let date = LocalDate(dateText) else { continue }
            switch name {
            case "sleep": found[owner, default: RecoveryInputs()].sleepMinutes[date] = value
            case HealthMetric.hrvSdnn.rawValue: found[owner, default: RecoveryInputs()].hrvMs[date] = value
            default: found[owner, default: RecoveryInputs()].restingHeartRate[date] = value
            }
        }
        return found
    }
}

extension HealthReadModel {
    /// Nights' figures without their segments (a briefing compares minutes, not hypnograms).
    public func nightFigures(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [LocalDate: SleepNight] {
        var nights: [LocalDate: SleepNight] = [:]
        let rows = try await client.rows("""
            SELECT date::text, asleep_minutes, in_bed_minutes, awake_minutes, core_minutes, deep_minutes, rem_minutes, start_s, end_s, source
            FROM rm_health_sleep WHERE owner_id = \(owner) AND date BETWEEN \(from.description)::date AND \(to.description)::date
            """, logger: logger)
        for try await row in rows.decode((String, Int32, Int32, Int32, Int32, Int32, Int32, Int64, Int64, String).self) {
            guard let date = LocalDate(row.0) else { throw CorruptData("night date", row.0) }
            nights[date] = SleepNight(
                date: date, asleepMinutes: Int(row.1), inBedMinutes: Int(row.2), awakeMinutes: Int(row.3), coreMinutes: Int(row.4),
                deepMinutes: Int(row.5), remMinutes: Int(row.6), startSeconds: row.7, endSeconds: row.8, source: row.9, segments: [])
        }
        return nights
    }

    /// The end of the newest sample of each metric counted for `from`…`to` (seconds since 1970).
    public func newestSamples(_ owner: UUID, metrics: [HealthMetric], from: LocalDate, to: LocalDate) async throws -> [HealthMetric: Int64] {
        var found: [HealthMetric: Int64] = [:]
        let names = metrics.map(\.rawValue)
        let rows = try await client.rows("""
            SELECT name, max(end_s) FROM rm_health_records
            WHERE owner_id = \(owner) AND kind = 'quantity' AND name = ANY(\(names)::text[])
              AND local_date BETWEEN \(from.description)::date AND \(to.description)::date
            GROUP BY name
            """, logger: logger)
        for try await (name, end) in rows.decode((String, Int64).self) {
            guard let metric = HealthMetric(rawValue: name) else { continue }
            found[metric] = end
        }
        return found
    }
}

extension HealthReadModel {
    public struct Finding: Sendable {
        public var id: UUID
        public var type: HealthAudit.FindingType
        public var severity: HealthAudit.Severity
        public var metric: String?
        public var from: LocalDate
        public var to: LocalDate
        /// The evidence as JSON text.
        public var evidence: String
        public var status: HealthAudit.Status
        public var detectedAt: Date
    }

    /// Findings whose dates meet from…to (all dates when nil), newest first, at most 500.
    public func findings(_ owner: UUID, from: LocalDate?, to: LocalDate?, statuses: [HealthAudit.Status], id: UUID? = nil) async throws -> [Finding] {
        var found: [Finding] = []
        let names = statuses.map(\.rawValue)
        let rows = try await client.rows("""
            SELECT id, type, severity, metric, from_date::text, to_date::text, evidence::text, status, detected_at
            FROM rm_health_findings
            WHERE owner_id = \(owner) AND status = ANY(\(names)::text[]) AND (\(id)::uuid IS NULL OR id = \(id))
              AND (\(from?.description)::date IS NULL OR to_date >= \(from?.description)::date)
              AND (\(to?.description)::date IS NULL OR from_date <= \(to?.description)::date)
            ORDER BY detected_at DESC, key LIMIT 500
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String, String?, String, String, String, String, Date).self) {
            guard let type = HealthAudit.FindingType(rawValue: row.1), let severity = HealthAudit.Severity(rawValue: row.2),
                  let from = LocalDate(row.4), let to = LocalDate(row.5), let status = HealthAudit.Status(rawValue: row.7)
            else { throw CorruptData("finding", row.0.uuidString) }
            found.append(Finding(id: row.0, type: type, severity: severity, metric: row.3, from: from, to: to, evidence: row.6,
                                 status: status, detectedAt: row.8))
        }
        return found
    }

    public struct FindingCount: Sendable {
        public var type: HealthAudit.FindingType
        public var severity: HealthAudit.Severity
        public var status: HealthAudit.Status
        public var count: Int
    }

    /// The user's findings counted by type, severity and status (every one, not a page).
    public func findingCounts(_ owner: UUID) async throws -> [FindingCount] {
        var found: [FindingCount] = []
        let rows = try await client.rows("""
            SELECT type, severity, status, count(*) FROM rm_health_findings WHERE owner_id = \(owner) GROUP BY type, severity, status
            """, logger: logger)
        for try await (type, severity, status, count) in rows.decode((String, String, String, Int64).self) {
            guard let type = HealthAudit.FindingType(rawValue: type), let severity = HealthAudit.Severity(rawValue: severity),
                  let status = HealthAudit.Status(rawValue: status) else { throw CorruptData("finding count", type) }
            found.append(FindingCount(type: type, severity: severity, status: status, count: Int(count)))
        }
        return found
    }

    /// How far the audit has read the log.
    public func auditPosition() async throws -> LogPosition {
        try await client.withConnection { connection in
            try await Checkpoints.read(HealthAuditProjector().name, on: connection, logger: logger)
        }
    }
}
