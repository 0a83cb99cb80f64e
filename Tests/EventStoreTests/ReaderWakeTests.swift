@testable import EventStore
import Foundation
import Logging
import PostgresNIO
import Testing
import TestSupport

/// Readers are woken after appends commit, never from inside an append's transaction (issue 10).
@Suite struct ReaderWakeTests {
    let logger = TestDatabase.logger

    /// Listens on the readers' channel while `body` runs, then collects notifications until one
    /// with `payload` arrives (or `seconds` pass). PostgreSQL delivers notifications in commit
    /// order, so anything an earlier commit queued arrives before a later marker.
    func notifications(
        _ database: TestDatabase, until payload: String, within seconds: Int = 10, _ body: @Sendable () async throws -> Void
    ) async throws -> [String] {
        let connection = try await PostgresConnection.connect(configuration: database.ownerURL.connectionConfiguration(), id: 1, logger: logger)
        do {
            let seen = try await connection.listen(on: ReaderWaker.channel) { notifications in
                try await body()
                return try await withThrowingTaskGroup(of: [String]?.self) { group in
                    group.addTask {
                        var seen: [String] = []
                        for try await notification in notifications {
                            seen.append(notification.payload)
                            if notification.payload == payload { break }
                        }
                        return seen
                    }
                    group.addTask {
                        try await Task.sleep(for: .seconds(seconds))
                        return nil
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
            }
            try await connection.close()
            return try #require(seen, "no notification \"\(payload)\" within \(seconds) s")
        } catch {
            try? await connection.close()
            throw error
        }
    }

    @Test func anAppendQueuesNoNotifyInItsOwnTransaction() async throws {
        try await TestDatabase.withAppClient { database, client in
            // Nobody follows this signal, so only the appends themselves could notify.
            let signal = CommitSignal()
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger, commits: signal)
            let stream = Fixtures.stream()
            let seen = try await notifications(database, until: "marker") {
                // Both paths: the single statement, and a transaction with work after the append.
                try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
                try await store.append(to: stream, expected: .exact(1), events: [Fixtures.event()]) { _, _ in }
                try await client.run("SELECT pg_notify(\(ReaderWaker.channel), 'marker')", logger: logger)
            }
            #expect(seen == ["marker"])
            #expect(signal.takeIfRung())
        }
    }

    @Test func onlyAnAppendThatStoredEventsRingsTheSignal() async throws {
        try await TestDatabase.withAppClient { _, client in
            let signal = CommitSignal()
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger, commits: signal)
            let stream = Fixtures.stream()
            let event = Fixtures.event()
            try await store.append(to: stream, expected: .noStream, events: [event])
            #expect(signal.takeIfRung())
            try await store.append(to: stream, expected: .noStream, events: [event])  // a replay stores nothing
            await #expect(throws: EventStoreError.self) {
                try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            }
            #expect(!signal.takeIfRung())
            // Stores on one client share its signal by default: that is what a ReaderWaker follows.
            #expect(PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger).commits === CommitSignal.of(client))
        }
    }

    @Test func theWakerAnnouncesACommitPromptly() async throws {
        try await TestDatabase.withAppClient { database, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let waker = ReaderWaker(client: client, logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await waker.run() }
                let started = ContinuousClock.now
                let seen = try await notifications(database, until: "", within: 10) {
                    try await store.append(to: Fixtures.stream(), expected: .any, events: [Fixtures.event()])
                }
                #expect(seen == [""])
                // Far below any poll interval; generous for a busy machine.
                #expect(ContinuousClock.now - started < .seconds(2))
                group.cancelAll()
            }
        }
    }

    @Test func theWakerCoalescesABurstOfCommits() async throws {
        try await TestDatabase.withAppClient { database, client in
            let waker = ReaderWaker(client: client, window: .milliseconds(500), logger: logger)
            let signal = CommitSignal.of(client)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await waker.run() }
                let seen = try await notifications(database, until: "marker", within: 30) {
                    for _ in 0..<100 { signal.ring() }
                    // The first ring is announced at once, every later one within the window. The
                    // marker goes out well after both, so a slow first NOTIFY on a busy machine
                    // still arrives before it.
                    try await Task.sleep(for: .seconds(3))
                    try await client.run("SELECT pg_notify(\(ReaderWaker.channel), 'marker')", logger: logger)
                }
                #expect(seen.first == "")
                #expect(seen.last == "marker")
                #expect((1...2).contains(seen.count - 1), "\(seen.count - 1) NOTIFYs for 100 commits")
                group.cancelAll()
            }
        }
    }

    @Test func aOneShotClientAnnouncesItsAppendsBeforeItStops() async throws {
        try await TestDatabase.withAppClient { database, _ in
            let logger = self.logger
            let seen = try await notifications(database, until: "") {
                try await PostgresClient.withRunning(database.appConfiguration(maximumConnections: 2), logger: logger) { client in
                    _ = try await PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
                        .append(to: Fixtures.stream(), expected: .any, events: [Fixtures.event()])
                }
            }
            #expect(seen == [""])
        }
    }
}
