import Domain
import Foundation
import PostgresNIO
@testable import Projections
import Testing
import TestSupport

/// The audit checks its conditions (gaps, sources that disagree) after every ingestion batch.
/// Its statements must read a handful of index entries per metric and day, not all of a
/// metric's items, also right after a first sync, when the table's statistics know nothing yet:
/// in that state the benchmark's year of data (300,000 steps) made one statement take 4.3 s and
/// the audit took a third of the machine while the user's data was still arriving.
@Suite struct HealthAuditPlanTests {
    /// The rows every scan of `rm_health_records` in an analysed plan returned, loops counted.
    static func rowsRead(_ plan: Any) -> Int {
        var total = 0
        if let node = plan as? [String: Any] {
            if node["Relation Name"] as? String == "rm_health_records" {
                total += (node["Actual Rows"] as? Int ?? 0) * (node["Actual Loops"] as? Int ?? 1)
            }
            for value in node.values { total += rowsRead(value) }
        } else if let list = plan as? [Any] {
            for value in list { total += rowsRead(value) }
        }
        return total
    }

    static func rowsRead(by query: PostgresQuery, on client: PostgresClient) async throws -> Int {
        let explained = PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + query.sql, binds: query.binds)
        var text = ""
        for try await line in try await client.query(explained).decode(String.self) { text += line }
        return rowsRead(try JSONSerialization.jsonObject(with: Data(text.utf8)))
    }

    @Test func theConditionChecksReadAFewItemsWhenTheStatisticsKnowNothingYet() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 2), logger: TestDatabase.logger) { client in
                // A first sync: 100 days of a step every minute, never analysed; and the overlaps of its last days.
                try await client.query("ALTER TABLE rm_health_records SET (autovacuum_enabled = false)")
                let owner = UUID()
                try await client.query("""
                    INSERT INTO rm_health_records (owner_id, key, kind, name, value, start_s, end_s, local_date, source_name, source_kind, series)
                    SELECT \(owner), 'quantity|steps|' || i, 'quantity', 'steps', 20, 1700000000 + i * 60, 1700000060 + i * 60,
                           DATE '2024-01-01' + (i / 1440), 'Watch', 'watch', 'sample'
                    FROM generate_series(0, 143999) i
                    """)
                try await client.query("""
                    INSERT INTO rm_health_source_overlap (owner_id, metric, date, source_a, source_b, a, b, seconds)
                    SELECT \(owner), 'steps', DATE '2024-04-10' - g, 'Phone', 'Watch', 100, 90, 3600 FROM generate_series(0, 19) g
                    """)
                let latest = try #require(LocalDate("2024-04-09"))
                let statements: [(String, PostgresQuery)] = [
                    ("the newest date", HealthAuditProjector.latestDateQuery(owner)),
                    ("the recent metrics", HealthAuditProjector.recentMetricsQuery(owner, latest: latest)),
                    ("the days with data", HealthAuditProjector.daysWithDataQuery(owner, metric: "steps", from: latest.adding(days: -60), to: latest)),
                    ("the recent overlaps", HealthAuditProjector.recentOverlapsQuery(owner, metric: "steps")),
                ]
                for (name, query) in statements {
                    let read = try await Self.rowsRead(by: query, on: client)
                    // One entry per metric or per day checked (61 days here), not 144,000.
                    #expect(read <= 200, "\(name) read \(read) items")
                }
                // And they answer what they did before.
                var overlaps = 0
                for try await _ in try await client.query(HealthAuditProjector.recentOverlapsQuery(owner, metric: "steps")).decode(
                    (String, String, String, Double, Double).self) { overlaps += 1 }
                #expect(overlaps == HealthAudit.divergenceWindow)
                var days = 0
                for try await _ in try await client.query(
                    HealthAuditProjector.daysWithDataQuery(owner, metric: "steps", from: latest.adding(days: -60), to: latest.adding(days: 5))
                ).decode(String.self) { days += 1 }
                #expect(days == 61)
            }
        }
    }
}
