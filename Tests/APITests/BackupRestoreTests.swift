@testable import API
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Projections
import Testing
import TestSupport

/// `lifelog backup` and `lifelog restore` (issue 29): a backup of a database with every area in
/// it, restored into a fresh database and its read models rebuilt, holds the same log and the
/// same rows in every table; the log is append-only again afterwards; a database that is not
/// empty is refused.
@Suite struct BackupRestoreTests {
    /// Tables whose rows name the moment they were written by the rebuild, not the data.
    static let rebuildBookkeeping: Set<String> = ["projection_checkpoints", "projection_rebuilds", "projection_dead_letters", "schema_migrations"]

    @Test func aBackupRestoresIntoAFreshDatabaseWithTheSameLogAndEveryTable() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now) { harness, http in
            try await Self.useEveryArea(http)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-backup-\(UUID().uuidString).dump").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await DatabaseBackup.dump(harness.database.ownerURL, to: file)

            let logger = TestDatabase.logger
            try await PostgresClient.withRunning(harness.database.ownerConfiguration(maximumConnections: 2), logger: logger) { original in
                // Read models kept by async projectors lag in the harness: both sides are compared fully rebuilt.
                let originalRebuilder = ProjectionRebuilder(client: original, keyring: AppHarness.keyring, logger: logger)
                for projector in AreaCatalog.projectors { _ = try await originalRebuilder.rebuild(projector) }
                let tables = try await Self.tables(original)
                #expect(tables.contains("events") && tables.contains("rm_habits") && tables.count > 30, "\(tables)")
                try await TestDatabase.with(migrated: false) { target in
                    try await PostgresClient.withRunning(target.ownerConfiguration(maximumConnections: 4), logger: logger) { restored in
                        try await DatabaseBackup.restore(target.ownerURL, from: file, client: restored, logger: logger)
                        let rebuilder = ProjectionRebuilder(client: restored, keyring: AppHarness.keyring, logger: logger)
                        for projector in AreaCatalog.projectors { _ = try await rebuilder.rebuild(projector) }

                        #expect(try await Self.tables(restored) == tables)
                        for table in tables where !Self.rebuildBookkeeping.contains(table) {
                            let before = try await Self.rows(table, original), after = try await Self.rows(table, restored)
                            #expect(before == after, "table \(table) differs after the restore")
                        }
                        #expect(try await Self.count("SELECT count(*) FROM events", original) > 20)
                        // Every restored event carries the restoring transaction's id: below any new one.
                        #expect(try await Self.count("SELECT count(DISTINCT transaction_id) FROM events", restored) == 1)
                        // The log is append-only again.
                        await #expect(throws: (any Error).self) {
                            try await restored.query("UPDATE events SET type = type WHERE global_position = 1", logger: logger)
                        }
                        // A database that is not empty is refused, and left as it was.
                        let refused = await #expect(throws: DatabaseBackup.Failure.self) {
                            try await DatabaseBackup.restore(target.ownerURL, from: file, client: restored, logger: logger)
                        }
                        #expect(refused?.description.contains("not empty") == true)
                    }
                }
            }
        }
    }

    /// Two users, each area's main writes.
    static func useEveryArea(_ http: any TestClientProtocol) async throws {
        for email in ["backup-a@example.com", "backup-b@example.com"] {
            let token = try #require(try await http.register(email).string("access_token"))
            let habit = try #require(try await http.call(.post, "/api/v1/habits", token: token,
                json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-03-01"}"#).string("id"))
            for day in ["2026-03-08", "2026-03-09", "2026-03-10"] {
                #expect(try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: token, json: #"{"date":"\#(day)"}"#).status == .created)
            }
            let task = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Call the bank","due_date":"2026-03-10","repeat":{"every":"week"}}"#).string("id"))
            #expect(try await http.call(.post, "/api/v1/tasks/\(task)/complete", token: token).status == .ok)
            let food = try #require(try await http.call(.post, "/api/v1/finance/categories", token: token,
                json: #"{"name":"Food","kind":"expense"}"#).string("id"))
            #expect(try await http.call(.post, "/api/v1/finance/transactions", token: token,
                json: #"{"kind":"expense","amount":"12.34","currency":"EUR","date":"2026-03-09","category_id":"\#(food)"}"#).status == .created)
            let goal = try #require(try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"Trip","currency":"EUR"}"#).string("id"))
            #expect(try await http.call(.put, "/api/v1/savings/goals/\(goal)/plan", token: token,
                json: #"{"amount":"50","anchor_day":1,"start_month":"2026-01"}"#).status == .ok)
            #expect(try await http.call(.post, "/api/v1/savings/goals/\(goal)/transactions", token: token,
                json: #"{"kind":"deposit","amount":"50","date":"2026-03-02"}"#).status == .created)
            let health = try await http.call(.post, "/api/v1/ingest/health", token: token, json: HealthIngestionTests.batch(samples: [
                HealthIngestionTests.sample("steps", 4321, "2026-03-09T08:00:00Z", "2026-03-09T08:30:00Z", source: "Watch", kind: "watch"),
                HealthIngestionTests.sample("heart_rate", 61, "2026-03-09T08:00:00Z", "2026-03-09T08:00:00Z", source: "Watch", kind: "watch"),
            ]))
            #expect(health.status == .ok, "\(health.text)")
            #expect(try await http.call(.patch, "/api/v1/me", token: token, json: #"{"name":"Renamed"}"#).status == .ok)
        }
    }

    static func tables(_ client: PostgresClient) async throws -> [String] {
        var names: [String] = []
        for try await name in try await client.query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", logger: TestDatabase.logger
        ).decode(String.self) { names.append(name) }
        return names
    }

    /// Every row as JSON, sorted; the log's transaction ids aside (the restore gives them anew).
    static func rows(_ table: String, _ client: PostgresClient) async throws -> [String] {
        var rows: [String] = []
        for try await row in try await client.query(
            "SELECT (to_jsonb(t) - 'transaction_id')::text FROM \(unescaped: table) t", logger: TestDatabase.logger
        ).decode(String.self) { rows.append(row) }
        return rows.sorted()
    }

    static func count(_ sql: String, _ client: PostgresClient) async throws -> Int {
        var value = 0
        for try await n in try await client.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger).decode(Int.self) { value = n }
        return value
    }
}
