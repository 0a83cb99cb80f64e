import Foundation
import PostgresNIO
import Projections
import Testing
import TestSupport

/// Issue 24: an ingestion's lookup of the items it might repeat must be one index probe per key
/// however stale the table's statistics are. The probe that found it: a user whose rows the
/// statistics did not know yet (many rows of other owners, no ANALYZE since the new user's first
/// sync) got a plan that read all of that user's rows along the day index and filtered them by
/// key (a 10,000-item batch 14.6 s, its re-send 28.9 s). These tests ask PostgreSQL for the
/// plans of the two lookups ingestion runs, in exactly that state.
@Suite struct HealthLookupPlanTests {
    /// Every scan of `rm_health_records` in a plan: (node type, index condition). A sequential
    /// scan has none; an index scan by owner alone has one that names no key, uuid or day.
    static func scans(_ plan: Any) -> [(String, String)] {
        var found: [(String, String)] = []
        if let node = plan as? [String: Any] {
            if node["Relation Name"] as? String == "rm_health_records" {
                // A bitmap scan's condition is the one it rechecks: its index scan's, below it.
                found.append((node["Node Type"] as? String ?? "", node["Index Cond"] as? String ?? node["Recheck Cond"] as? String ?? ""))
            }
            for value in node.values { found += scans(value) }
        } else if let list = plan as? [Any] {
            for value in list { found += scans(value) }
        }
        return found
    }

    /// Every filter in a plan that tests a subplan: a plain one runs once per row it filters.
    static func subplanFilters(_ plan: Any) -> [String] {
        var found: [String] = []
        if let node = plan as? [String: Any] {
            if let filter = node["Filter"] as? String, filter.contains("SubPlan") { found.append(filter) }
            for value in node.values { found += subplanFilters(value) }
        } else if let list = plan as? [Any] {
            for value in list { found += subplanFilters(value) }
        }
        return found
    }

    /// `count` step items of `owner`, the i-th with key `quantity|steps|i|i+60|Phone` and uuid `n-i`.
    static func storeSteps(of owner: UUID, count: Int, on client: PostgresClient) async throws {
        try await client.query("""
            INSERT INTO rm_health_records (owner_id, key, uuid, kind, name, value, start_s, end_s, local_date,
                                           source_name, source_kind, series)
            SELECT \(owner), 'quantity|steps|' || i || '|' || (i + 60) || '|Phone', 'n-' || i, 'quantity', 'steps', 100,
                   1700000000 + i * 60, 1700000060 + i * 60, DATE '2024-01-01' + (i / 1440), 'Phone', 'phone', 'sample'
            FROM generate_series(1, \(count)::int) i
            """)
    }

    static func plan(_ query: PostgresQuery, on client: PostgresClient) async throws -> Any {
        let explained = PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) " + query.sql, binds: query.binds)
        var text = ""
        for try await line in try await client.query(explained).decode(String.self) { text += line }
        return try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    static func explain(_ query: PostgresQuery, on client: PostgresClient) async throws -> [(String, String)] {
        scans(try await plan(query, on: client))
    }

    @Test func theLookupsProbeByKeyWhenTheStatisticsDoNotKnowTheUser() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 2), logger: TestDatabase.logger) { client in
                // 160,000 items of 2,000 other owners, analysed; then 20,000 of a new user, not: the
                // statistics expect some 90 rows of any owner, and a scan of them cheaper than 10,000 probes.
                try await client.query("ALTER TABLE rm_health_records SET (autovacuum_enabled = false)")
                try await client.query("""
                    INSERT INTO rm_health_records (owner_id, key, uuid, kind, name, value, start_s, end_s, local_date,
                                                   source_name, source_kind, series)
                    SELECT o.id, 'quantity|steps|' || i || '|' || (i + 60) || '|Watch', 'u-' || o.n || '-' || i, 'quantity', 'steps', 100,
                           1700000000 + i * 60, 1700000060 + i * 60, DATE '2024-01-01' + (i / 1440), 'Watch', 'watch', 'sample'
                    FROM (SELECT n, gen_random_uuid() AS id FROM generate_series(1, 2000) n) o, generate_series(1, 80) i
                    """)
                try await client.query("ANALYZE rm_health_records")
                let owner = UUID()
                try await Self.storeSteps(of: owner, count: 20_000, on: client)
                // A re-send of 10,000 of them: every key and uuid is stored.
                let keys = (1...10_000).map { "quantity|steps|\($0)|\($0 + 60)|Phone" }
                let uuids = (1...10_000).map { "n-\($0)" }

                let lookupPlan = try await Self.plan(
                    HealthReadModel.decisionStateQuery(owner, streamId: "health-\(owner)", keys: keys, uuids: uuids), on: client)
                let lookup = Self.scans(lookupPlan)
                #expect(!lookup.isEmpty)
                // An item found by uuid whose key the batch names is dropped through a hash of the keys,
                // not by scanning them once per item.
                let filters = Self.subplanFilters(lookupPlan)
                #expect(!filters.isEmpty)
                for filter in filters { #expect(filter.contains("hashed SubPlan"), "\(filter)") }
                for (node, condition) in lookup {
                    #expect(node == "Index Scan" || node == "Index Only Scan", "\(node) on rm_health_records (\(condition))")
                    #expect(condition.contains("key") || condition.contains("uuid"), "\(node) with condition \(condition)")
                }

                let days = try await Self.explain(HealthReadModel.storedOnDatesQuery(owner, uuids: uuids), on: client)
                #expect(!days.isEmpty)
                for (node, condition) in days {
                    #expect(node != "Seq Scan", "\(node) on rm_health_records")
                    #expect(condition.contains("uuid") || condition.contains("local_date"), "\(node) with condition \(condition)")
                }
            }
        }
    }

    /// A re-sent batch names each stored item twice, by key and by uuid: the lookup reads it once
    /// (its rows are most of a re-send's work), and still reads an item only its uuid names (an
    /// edit that moved it to another key) and one only its key names (a new uuid for it).
    @Test func theLookupReadsEachItemOnceAndEveryItemTheBatchNames() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 2), logger: TestDatabase.logger) { client in
                let owner = UUID()
                try await Self.storeSteps(of: owner, count: 3_000, on: client)
                let model = HealthReadModel(client: client, logger: TestDatabase.logger)
                // Items 1–2,000 by key and uuid; 2,001 by key only (the batch does not name its uuid);
                // 2,002 by uuid only (its key in the batch is new); a key and a uuid not stored.
                let keys = (1...2_001).map { "quantity|steps|\($0)|\($0 + 60)|Phone" } + ["quantity|steps|1|2|Phone", "quantity|steps|9|99|Phone"]
                let uuids = (1...2_000).map { "n-\($0)" } + ["fresh-1", "n-2002", "fresh-2"]
                let (records, _) = try await model.decisionState(owner, streamId: "health-\(owner)", keys: keys, uuids: uuids)
                #expect(records.count == 2_002)
                #expect(Set(records.compactMap(\.uuid)).count == 2_002)
                #expect(records.contains { $0.uuid == "n-2001" } && records.contains { $0.uuid == "n-2002" })
            }
        }
    }
}
