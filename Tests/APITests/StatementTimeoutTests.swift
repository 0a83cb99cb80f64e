import API
import EventStore
import Foundation
import PostgresNIO
import Testing
import TestSupport

/// Issue 24: no single statement of the server's pool may hold a database core for minutes. The
/// pool is configured with `statement_timeout` (`DATABASE_STATEMENT_TIMEOUT_MS`); a statement
/// past it is cancelled by PostgreSQL and answered as a 503 the client may retry.
@Suite struct StatementTimeoutTests {
    @Test func aStatementPastTheLimitIsCancelledAndAnsweredAsUnavailable() async throws {
        try await TestDatabase.with { database in
            let configuration = database.ownerURL.clientConfiguration(maximumConnections: 2, statementTimeout: .milliseconds(200))
            try await PostgresClient.withRunning(configuration, logger: TestDatabase.logger) { client in
                let started = ContinuousClock.now
                do {
                    try await client.run("SELECT pg_sleep(5)", logger: TestDatabase.logger)
                    Issue.record("a five-second statement ran to its end under a 200 ms limit")
                } catch {
                    #expect(PostgresErrors.sqlState(error) == "57014")
                    let problem = try #require(ProblemMapping.problem(for: error))
                    #expect(problem.status == 503)
                    #expect(problem.retryAfter != nil)
                }
                #expect(ContinuousClock.now - started < .seconds(3))
                // The connection is fine afterwards, and a short statement runs.
                try await client.run("SELECT 1", logger: TestDatabase.logger)
            }
        }
    }
}
