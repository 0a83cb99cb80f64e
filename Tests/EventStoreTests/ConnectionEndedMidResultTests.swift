@testable import EventStore
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

    /// The same for the append, whose answer is a row per event: a large batch's answer is read
    /// the collect-all way too (`PostgresEventStore.preparedAnswerLimit`). A 40,000-event batch's
    /// connection is terminated at moments from 30 to 85 % of its time, which on this
    /// machine covers the end of its statement and its 2.4 MB answer on the way (read through the
    /// prepared statement's row sequence, one of these crashed the process).
    @Test func anAppendCutOffMidAnswerFailsItsStatementAndNotTheProcess() async throws {
        let logger = self.logger
        try await TestDatabase.withAppClient { database, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 2), logger: logger) { admin in
                let batch = { (0..<40_000).map { Fixtures.event(["n": $0]) } }
                try await store.append(to: Fixtures.stream(), expected: .noStream, events: batch())  // the owner's key, warm caches
                let started = ContinuousClock.now
                try await store.append(to: Fixtures.stream(), expected: .noStream, events: batch())
                let took = ContinuousClock.now - started
                var cutOff = 0, streams: [StreamName] = []
                for round in 0..<12 {
                    let stream = Fixtures.stream(), events = batch()
                    streams.append(stream)
                    async let stored: Bool = {
                        do { try await store.append(to: stream, expected: .noStream, events: events); return true } catch { return false }
                    }()
                    try await Task.sleep(for: took * (0.3 + 0.05 * Double(round)))
                    try await admin.run("""
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                        """, logger: logger)
                    if !(await stored) { cutOff += 1 }
                }
                #expect(cutOff > 0)
                // Whatever was cut off is stored whole or not at all, and the store goes on.
                for stream in streams {
                    var version: Int64?
                    for _ in 0..<5 where version == nil { version = try? await store.streamVersion(stream.id) }
                    #expect(version == 0 || version == 40_000, "\(stream.id): \(String(describing: version))")
                }
                let after = try await store.append(to: Fixtures.stream(), expected: .noStream, events: [Fixtures.event()])
                #expect(after.events.count == 1)
            }
        }
    }
}
