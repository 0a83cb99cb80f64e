import EventStore
import Foundation
import Logging
import PostgresNIO
import Testing
import TestSupport

/// PostgreSQL can end a connection while a result is on its way: a restart, an administrator's
/// `pg_terminate_backend`, `DROP DATABASE … WITH (FORCE)`. PostgresNIO 1.33.2 then reads what
/// the socket still holds without waiting for the reader's demand, and when its row stream was
/// waiting for that demand it stops the process on a precondition
/// (`RowStreamStateMachine.channelReadComplete`). The statement must fail; the server must live.
@Suite struct ConnectionEndedMidResultTests {
    let logger = TestDatabase.logger

    @Test func aResultCutOffByTheServerFailsItsStatementAndNotTheProcess() async throws {
        let logger = self.logger
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 4), logger: logger) { client in
                var failed = 0
                for round in 0..<20 {
                    // The pool may hand out the connection the last round's terminate closed.
                    let outcome = try? await client.withConnection { connection in
                        let pid = try await connection.rows("SELECT pg_backend_pid()", logger: logger).rows[0].decode(Int32.self)
                        return try await withThrowingTaskGroup(of: Bool.self) { group in
                            group.addTask {
                                do {
                                    // About 12 MB: many socket reads, so the reader is mid-result.
                                    _ = try await connection.rows("SELECT repeat('x', 240) FROM generate_series(1, 50000)", logger: logger)
                                    return false
                                } catch {
                                    return true
                                }
                            }
                            group.addTask {
                                try await Task.sleep(for: .milliseconds(5 + round * 3))
                                try await client.run("SELECT pg_terminate_backend(\(pid))", logger: logger)
                                return false
                            }
                            var cutOff = false
                            for try await value in group { cutOff = cutOff || value }
                            return cutOff
                        }
                    }
                    if outcome == true { failed += 1 }
                }
                // The process is still here, rounds were cut off mid-result, and the pool serves.
                #expect(failed > 0)
                var answered = false
                for _ in 0..<5 where !answered {
                    answered = (try? await client.rows("SELECT 1", logger: logger).rows.count) == 1
                }
                #expect(answered)
            }
        }
    }
}
