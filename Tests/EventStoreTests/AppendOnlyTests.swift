import EventStore
import Foundation
import PostgresNIO
import Testing
import TestSupport

@Suite struct AppendOnlyTests {
    let logger = TestDatabase.logger

    static let changes: [PostgresQuery] = [
        "UPDATE events SET event_type = 'tampered'",
        "DELETE FROM events",
        "TRUNCATE events",
    ]

    @Test(arguments: [false, true])
    func eventsCannotBeChangedOrRemoved(asOwner: Bool) async throws {
        try await TestDatabase.with { database in
            let configuration = asOwner ? database.ownerConfiguration() : database.appConfiguration()
            try await PostgresClient.withRunning(configuration, logger: logger) { client in
                let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
                let stream = Fixtures.stream()
                try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
                for change in Self.changes {
                    await #expect {
                        try await client.run(change, logger: logger)
                    } throws: { error in
                        // The owner meets the trigger; the server role is refused by privileges first.
                        let state = PostgresErrors.sqlState(error)
                        return asOwner ? state == PostgresErrors.appendOnlyViolation : state == "42501"
                    }
                }
                let events = try await store.readStream(stream.id)
                #expect(events.count == 1)
                #expect(events.first?.type == "test.happened")
            }
        }
    }

    @Test func theServerRoleHasOnlySelectAndInsertOnEvents() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let rows = try await client.query("""
                    SELECT string_agg(privilege_type, ',' ORDER BY privilege_type)
                    FROM information_schema.role_table_grants
                    WHERE grantee = 'lifelog_app' AND table_name = 'events'
                    """, logger: logger)
                var privileges = ""
                for try await value in rows.decode(String.self) { privileges = value }
                #expect(privileges == "INSERT,SELECT")
            }
        }
    }
}
