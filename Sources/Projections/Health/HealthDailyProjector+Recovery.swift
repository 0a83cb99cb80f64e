import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

extension HealthDailyProjector {
    /// Scores again every date whose score reads a changed day or night: the date itself and the
    /// 60 after it (their baselines hold it). Only dates with a figure of their own are stored;
    /// the others answer "no data" when read.
    func recomputeRecovery(changed: Set<Day>, at recordedAt: Date, on connection: PostgresConnection, logger: Logger) async throws {
        // Per owner, the affected dates as disjoint spans: changes in 2016 and in 2025 re-score
        // two windows, not the nine years between them.
        var affected: [UUID: [ClosedRange<Int>]] = [:]
        for day in changed {
            guard let date = LocalDate(day.date) else { continue }
            affected[day.owner, default: []].append(RecoveryFormula.affectedDates(by: date))
        }
        var owners: [UUID] = [], firsts: [LocalDate] = [], lasts: [LocalDate] = []
        for (owner, ranges) in affected {
            for span in DaySpans.merged(ranges) {
                owners.append(owner)
                firsts.append(LocalDate(daysSinceEpoch: span.lowerBound))
                lasts.append(LocalDate(daysSinceEpoch: span.upperBound))
            }
        }
        guard !owners.isEmpty else { return }
        let inputs = try await HealthReadModel.recoveryInputs(
            owners: owners, from: firsts.map { $0.adding(days: -RecoveryFormula.baselineLength) }, to: lasts, on: connection, logger: logger)
        var rows: [RecoveryRow] = []
        for (index, owner) in owners.enumerated() {
            let given = inputs[owner] ?? RecoveryInputs()
            for day in firsts[index].daysSinceEpoch...lasts[index].daysSinceEpoch {
                let date = LocalDate(daysSinceEpoch: day)
                guard given.hasData(on: date) else { continue }
                rows.append(RecoveryRow(owner: owner, score: RecoveryFormula.score(date: date, inputs: given), inputs: .init(date, given)))
            }
        }
        let (fromText, toText) = (firsts.map(\.description), lasts.map(\.description))
        try await connection.run("""
            DELETE FROM rm_health_recovery r USING unnest(\(owners)::uuid[], \(fromText)::date[], \(toText)::date[]) AS t(owner, first, last)
            WHERE r.owner_id = t.owner AND r.formula_version = \(RecoveryFormula.version) AND r.date BETWEEN t.first AND t.last
            """, logger: logger)
        guard !rows.isEmpty else { return }
        let json = try EventCoding.encode(rows)
        try await connection.run("""
            INSERT INTO rm_health_recovery (owner_id, formula_version, date, score, status, inputs, result)
            SELECT owner, score ->> 'formula_version', (score ->> 'date')::date, (score ->> 'score')::float8, score ->> 'status', inputs, score
            FROM jsonb_to_recordset(\(json)::jsonb) AS r(owner uuid, score jsonb, inputs jsonb)
            """, logger: logger)
        // `health.recovery_scored` for the event webhooks that asked: once per webhook and date,
        // the first time the date has a score, for dates from two days before the webhook was
        // made (an import of years of history does not send years of scores). Same transaction,
        // so a score and its push are never apart.
        try await connection.run("""
            INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status,
                                         endpoint_id, next_attempt_at, created_at)
            SELECT gen_random_uuid(), r.owner_id, 'event/' || e.id || '/recovery/' || r.date, 'event', 'health.recovery_scored', r.date::text,
                   \(recordedAt), '', '', '',
                   jsonb_build_object('date', r.date::text, 'score', r.score, 'status', r.status, 'formula_version', r.formula_version),
                   'pending', e.id, '-infinity', \(recordedAt)
            FROM unnest(\(owners)::uuid[], \(fromText)::date[], \(toText)::date[]) AS t(owner, first, last)
            JOIN rm_health_recovery r ON r.owner_id = t.owner AND r.formula_version = \(RecoveryFormula.version)
                                      AND r.date BETWEEN t.first AND t.last AND r.score IS NOT NULL
            JOIN webhook_endpoints e ON e.user_id = r.owner_id AND e.purpose = 'events' AND e.disabled_at IS NULL
                                     AND 'health.recovery_scored' = ANY(e.events) AND r.date >= (e.created_at AT TIME ZONE 'UTC')::date - 2
            ON CONFLICT (key) DO NOTHING
            """, logger: logger)
    }

    struct RecoveryRow: Encodable {
        var owner: UUID
        var score: RecoveryScore
        var inputs: DateInputs
    }

    /// The date's own figures, as the score read them.
    struct DateInputs: Encodable {
        var sleepMinutes: Double?
        var hrvMs: Double?
        var restingHeartRate: Double?

        init(_ date: LocalDate, _ inputs: RecoveryInputs) {
            sleepMinutes = inputs.sleepMinutes[date]
            hrvMs = inputs.hrvMs[date]
            restingHeartRate = inputs.restingHeartRate[date]
        }
    }
}
