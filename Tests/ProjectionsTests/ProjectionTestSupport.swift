import API
import EventStore
import Foundation
import PostgresNIO
import Projections
import TestSupport

enum ProjectionFixtures {
    static let logger = TestDatabase.logger

    static func store(_ client: PostgresClient) -> PostgresEventStore {
        PostgresEventStore(client: client, keyring: AppHarness.keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
    }

    /// A scripted history: several owners and streams, batches of one to three events.
    @discardableResult
    static func writeHistory(_ store: PostgresEventStore, appends: Int, seed: UInt64) async throws -> Int {
        var random = SeededGenerator(seed: seed)
        let owners = (0..<3).map { _ in UUID() }
        var streams: [StreamName] = []
        var written = 0
        for step in 0..<appends {
            let stream: StreamName
            if streams.isEmpty || Int.random(in: 0..<4, using: &random) == 0 {
                let kind = ["habit", "task", "user"][Int.random(in: 0..<3, using: &random)]
                stream = Fixtures.stream(kind, owner: owners[Int.random(in: 0..<owners.count, using: &random)])
                streams.append(stream)
            } else {
                stream = streams[Int.random(in: 0..<streams.count, using: &random)]
            }
            let events = (0..<Int.random(in: 1...3, using: &random)).map { index in
                Fixtures.event(["step": step, "index": index], type: "test.\(["created", "changed", "logged"][Int.random(in: 0..<3, using: &random)])")
            }
            try await store.append(to: stream, expected: .any, events: events)
            written += events.count
        }
        return written
    }

    /// The whole table as text, row by row, for equality checks.
    static func dump(_ table: String, orderBy: String, client: PostgresClient) async throws -> [String] {
        let rows = try await client.query("SELECT t::text FROM \(unescaped: table) t ORDER BY \(unescaped: orderBy)")
        var lines: [String] = []
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines
    }

    static func indexNames(_ table: String, client: PostgresClient) async throws -> [String] {
        let rows = try await client.query("SELECT indexname FROM pg_indexes WHERE tablename = \(table) AND schemaname = current_schema() ORDER BY 1")
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// What rm_stream_summary must hold, computed straight from the log.
    static func streamSummaryOracle(client: PostgresClient) async throws -> [String] {
        let rows = try await client.query("""
            SELECT format('%s|%s|%s|%s', e.stream_id, count(*), max(e.stream_version),
                          (array_agg(e.event_type ORDER BY e.stream_version DESC))[1])
            FROM events e GROUP BY e.stream_id ORDER BY e.stream_id
            """)
        var lines: [String] = []
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines
    }

    static func streamSummaryFacts(client: PostgresClient) async throws -> [String] {
        let rows = try await client.query("""
            SELECT format('%s|%s|%s|%s', stream_id, event_count, last_stream_version, last_event_type)
            FROM rm_stream_summary ORDER BY stream_id
            """)
        var lines: [String] = []
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines
    }

    static func activityOracle(client: PostgresClient) async throws -> [String] {
        let rows = try await client.query("""
            SELECT format('%s|%s|%s', owner_id, event_type, count(*)) FROM events
            GROUP BY owner_id, event_type ORDER BY owner_id, event_type
            """)
        var lines: [String] = []
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines
    }

    static func activityFacts(client: PostgresClient) async throws -> [String] {
        let rows = try await client.query("""
            SELECT format('%s|%s|%s', owner_id, event_type, event_count) FROM rm_owner_activity
            ORDER BY owner_id, event_type
            """)
        var lines: [String] = []
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines
    }
}
