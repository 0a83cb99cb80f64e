import Foundation
import PostgresNIO
@testable import Projections
import Testing
import TestSupport

/// A morning queues every user's reminders at once, and the delivery claims them 64 at a time
/// right after, before PostgreSQL has analysed the table. Joined to the endpoints, the claim then
/// read every due row (and sorted them) for each claim of 64: 18 ms a claim at 12,000 rows,
/// most of the database's time during a push (issue 30's webhook figure).
@Suite struct OutboxClaimPlanTests {
    /// Rows this backend has read from the outbox and not yet reported, by any scan (inside
    /// the claim's function too).
    static func outboxRowsRead(on connection: PostgresConnection) async throws -> Int {
        var read = 0
        for try await count in try await connection.rows("""
            SELECT (pg_stat_get_xact_tuples_returned('reminder_outbox'::regclass)
                    + pg_stat_get_xact_tuples_fetched('reminder_outbox'::regclass))::int
            """, logger: TestDatabase.logger).decode(Int.self) { read = count }
        return read
    }

    /// Reminders are due at their minute (to the microsecond here); event webhooks from
    /// -infinity: the cursor carries both back exactly, or a run's next claim would start past
    /// the rows still waiting.
    @Test(arguments: ["2026-06-01 06:00:00.123456+00", "-infinity"])
    func aClaimReadsAboutItsOwnRowsWhenTheStatisticsKnowNothingYet(due: String) async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 2), logger: TestDatabase.logger) { client in
                try await client.query("ALTER TABLE reminder_outbox SET (autovacuum_enabled = false)")
                try await client.query("ALTER TABLE webhook_endpoints SET (autovacuum_enabled = false)")
                try await client.query("""
                    INSERT INTO webhook_endpoints (id, user_id, purpose, url, secret, created_at)
                    SELECT md5('endpoint' || i)::uuid, md5('user' || i)::uuid, 'reminders', 'http://127.0.0.1:9/hook', 'sealed', now()
                    FROM generate_series(0, 1999) i
                    """)
                try await client.query("""
                    INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status,
                                                 endpoint_id, next_attempt_at, created_at)
                    SELECT gen_random_uuid(), md5('user' || (i % 2000))::uuid, 'k' || i, 'reminder', 'habit', 's' || i,
                           '2026-06-01 06:00+00', '2026-06-01T08:00', 'title', 'body', '{}', 'pending',
                           md5('endpoint' || (i % 2000))::uuid, \(due)::timestamptz, now()
                    FROM generate_series(0, 7999) i
                    """)
                let now = try #require(ISO8601DateFormatter().date(from: "2026-06-01T06:01:00Z"))
                var cursor: ReminderOutboxStore.ClaimCursor?
                var claimed = 0
                // Three claims one after the other, as one lane of a run takes them.
                for round in 0..<3 {
                    let (rows, read) = try await client.withConnection { connection in
                        try await connection.transaction(logger: TestDatabase.logger) { connection in
                            let before = try await Self.outboxRowsRead(on: connection)
                            var rows: [(UUID, String, Int32)] = []
                            let claim = ReminderOutboxStore.claimQuery(limit: 64, now: now, lease: 120, after: cursor, token: UUID())
                            for try await row in try await connection.rows(claim, logger: TestDatabase.logger).decode(
                                (UUID, String, String, String, String, Date, String, String, String, String, Int32,
                                 UUID, UUID, String, String, String, String?, Date?, Date, String, Int32).self) {
                                rows.append((row.0, row.19, row.20))
                            }
                            return (rows, try await Self.outboxRowsRead(on: connection) - before)
                        }
                    }
                    #expect(rows.count == 64, "claim \(round + 1)")
                    #expect(read <= 400, "claim \(round + 1) read \(read) rows of the outbox for 64")
                    claimed += rows.count
                    cursor = rows.max { $0.2 < $1.2 }.map { ReminderOutboxStore.ClaimCursor(due: $0.1, id: $0.0) }
                }
                #expect(claimed == 192)
            }
        }
    }
}
