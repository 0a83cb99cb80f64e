import EventStore
import Foundation
import PostgresNIO
import Testing
import TestSupport

@Suite struct PostgresErrorsTests {
    let logger = TestDatabase.logger

    /// A query cut off by the server going away (as `pg_ctl stop -m fast` does to every session)
    /// is the database being unavailable, a 503, not an internal error.
    @Test func aTerminatedSessionIsAConnectionFailure() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 2), logger: logger) { client in
                let victim = Task {
                    try await client.withConnection { connection in
                        try await connection.run("SET application_name = 'victim'", logger: logger)
                        try await connection.run("SELECT pg_sleep(30)", logger: logger)
                    }
                }
                var terminated = false
                for _ in 0..<1_200 where !terminated {  // up to 30 s for the victim to start on a busy machine
                    try await Task.sleep(for: .milliseconds(25))
                    for try await done in try await client.query("""
                        SELECT bool_or(pg_terminate_backend(pid)) FROM pg_stat_activity
                        WHERE application_name = 'victim' AND query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()
                        """, logger: logger).decode(Bool?.self) { terminated = done ?? false }
                }
                #expect(terminated)
                let failure = await victim.result
                guard case .failure(let error) = failure else {
                    Issue.record("the sleeping query was not cut off")
                    return
                }
                #expect(PostgresErrors.sqlState(error) == "57P01")
                #expect(PostgresErrors.isConnectionFailure(error))
            }
        }
    }
}
