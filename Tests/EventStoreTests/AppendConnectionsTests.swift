@testable import EventStore
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TestSupport

/// Appends take connections of their own before the pool's (`AppendConnections`): never two
/// statements on one, never waiting for one, and none left behind by a restart or a shutdown.
@Suite struct AppendConnectionsTests {
    let logger = TestDatabase.logger

    /// Runs `body` with the service running on the test database, its sessions named `name`.
    func withRunning(
        _ database: TestDatabase, name: String, capacity: Int = 3, idleSweeps: Int = 60,
        _ body: (AppendConnections) async throws -> Void
    ) async throws {
        let connections = AppendConnections(
            configuration: try database.ownerURL.appendConnectionConfiguration(role: "lifelog_app", applicationName: name),
            capacity: capacity, idleSweeps: idleSweeps, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await connections.run() }
            defer { group.cancelAll() }
            try await body(connections)
        }
    }

    /// What a test works with: its database, the pool, the sessions' name, the service and a store using both.
    struct Setup {
        let database: TestDatabase
        let client: PostgresClient
        let name: String
        let connections: AppendConnections
        let store: PostgresEventStore
    }

    /// Runs `body` on a fresh database with the service running and a store that appends through it.
    func withStore(capacity: Int = 3, idleSweeps: Int = 60, _ body: (Setup) async throws -> Void) async throws {
        try await TestDatabase.withAppClient { database, client in
            let name = "append-test-\(UUID().uuidString.prefix(8))"
            try await withRunning(database, name: name, capacity: capacity, idleSweeps: idleSweeps) { connections in
                let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger, appendConnections: connections)
                try await body(Setup(database: database, client: client, name: name, connections: connections, store: store))
            }
        }
    }

    /// The backends of the sessions named `name`, as PostgreSQL lists them.
    func backends(_ name: String, on client: PostgresClient) async throws -> [Int32] {
        try await client.rows("SELECT pid FROM pg_stat_activity WHERE application_name = \(name) ORDER BY pid", logger: logger)
            .rows.map { try $0.decode(Int32.self) }
    }

    /// Polls `condition` for up to 10 s.
    func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func sequentialAppendsRunOnOneConnectionOfTheirOwn() async throws {
        try await withStore { setup in
            let (client, name, connections, store) = (setup.client, setup.name, setup.connections, setup.store)
            let stream = Fixtures.stream()
            let pids = Mutex<[Int32]>([])
            let logger = self.logger
            let recordPID: PostgresEventStore.AlsoInTransaction = { connection, _ in
                let pid = try await connection.rows("SELECT pg_backend_pid()", logger: logger).rows[0].decode(Int32.self)
                pids.withLock { $0.append(pid) }
            }
            // The first appends find none free and lease from the pool while one is opened for them
            // (an authentication takes a while in a debug build).
            var version: Int64 = 0
            #expect(try await eventually {
                try await store.append(to: stream, expected: .exact(version), events: [Fixtures.event()])
                version += 1
                let own = try await backends(name, on: client)
                return connections.openCount == 1 && own.count == 1
            })
            for n in 0..<40 {
                // With and without work in the append's transaction: both take the append connection.
                try await store.append(to: stream, expected: .exact(version + Int64(n)), events: [Fixtures.event(["n": n])],
                                       also: n % 2 == 0 ? nil : recordPID)
            }
            #expect(try await store.streamVersion(stream.id) == version + 40)
            let own = try await backends(name, on: client)
            #expect(own.count == 1)
            #expect(connections.openCount == 1)
            #expect(pids.withLock { $0 } == Array(repeating: own[0], count: 20), "each append with work in its transaction ran on it")
        }
    }

    @Test func concurrentAppendsNeverShareAConnection() async throws {
        try await withStore(capacity: 3) { setup in
            let (client, name, connections, store) = (setup.client, setup.name, setup.connections, setup.store)
            let streams = (0..<24).map { _ in Fixtures.stream() }
            let inUse = Mutex<Set<Int32>>([])
            let shared = Atomic<Int>(0)
            // Each append holds its transaction open a moment, so 24 writers need more than three connections at once.
            let logger = self.logger
            let also: PostgresEventStore.AlsoInTransaction = { connection, _ in
                let pid = try await connection.rows("SELECT pg_backend_pid()", logger: logger).rows[0].decode(Int32.self)
                if !inUse.withLock({ $0.insert(pid).inserted }) { shared.add(1, ordering: .relaxed) }
                try await connection.run("SELECT pg_sleep(0.005)", logger: logger)
                inUse.withLock { _ = $0.remove(pid) }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for stream in streams {
                    group.addTask {
                        for n in 0..<10 {
                            try await store.append(to: stream, expected: .exact(Int64(n)), events: [Fixtures.event(["n": n])], also: also)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(shared.load(ordering: .relaxed) == 0, "two appends ran on one connection at once")
            #expect(connections.servedCount > 0, "appends on the append connections")
            for stream in streams { #expect(try await store.streamVersion(stream.id) == 10) }
            #expect(connections.openCount <= 3)
            #expect(try await backends(name, on: client).count <= 3)
        }
    }

    @Test func aConnectionPostgreSQLEndedIsLeftAndAnotherOpened() async throws {
        try await withStore { setup in
            let (database, client, name, connections, store) = (setup.database, setup.client, setup.name, setup.connections, setup.store)
            let stream = Fixtures.stream()
            try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            #expect(try await eventually { try await backends(name, on: client).count == 1 })
            let before = try await backends(name, on: client)
            let kept = try await connections.withConnection(orFrom: client) { $0 }
            // As the login role (the app's sessions act as lifelog_app, which may not signal them).
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 1), logger: logger) { owner in
                try await owner.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(name)", logger: logger)
            }
            #expect(try await eventually { try await backends(name, on: client).isEmpty })
            #expect(try await eventually { kept.isClosed })  // NIO has seen the socket closed
            for n in 1...10 {
                do {
                    try await store.append(to: stream, expected: .exact(Int64(n)), events: [Fixtures.event(["n": n])])
                } catch {
                    Issue.record("append \(n) after the connection ended: \(String(reflecting: error))")
                    throw error
                }
            }
            #expect(try await store.streamVersion(stream.id) == 11)
            #expect(try await eventually { try await backends(name, on: client).count == 1 })
            #expect(try await backends(name, on: client) != before)
            #expect(connections.openCount == 1)
        }
    }

    @Test func aConnectionIsKeptAfterPostgreSQLsAnswerAndClosedAfterACancelledStatement() async throws {
        try await withStore { setup in
            let (client, name, connections, store) = (setup.client, setup.name, setup.connections, setup.store)
            let stream = Fixtures.stream()
            try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            #expect(try await eventually {
                let own = try await backends(name, on: client)
                return connections.openCount == 1 && own.count == 1
            })
            let first = try await backends(name, on: client)
            // A conflict is PostgreSQL's answer: the connection serves the next append.
            await #expect(throws: EventStoreError.self) {
                try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            }
            try await store.append(to: stream, expected: .exact(1), events: [Fixtures.event()])
            #expect(try await backends(name, on: client) == first)
            // A statement cut off by its time limit: that connection is not used again.
            let logger = self.logger
            await #expect(throws: (any Error).self) {
                try await connections.withConnection(orFrom: client) { connection in
                    try await connection.transaction(logger: logger) { connection in
                        try await connection.run("SET LOCAL statement_timeout = 20", logger: logger)
                        try await connection.run("SELECT pg_sleep(2)", logger: logger)
                    }
                }
            }
            #expect(try await eventually { try await backends(name, on: client).isEmpty })
            #expect(connections.openCount == 0)
            try await store.append(to: stream, expected: .exact(2), events: [Fixtures.event()])
            #expect(try await eventually {
                let now = try await backends(name, on: client)
                return now.count == 1 && now != first
            })
        }
    }

    @Test func workFoundOnAClosedConnectionRunsAgainOnThePool() async throws {
        try await withStore { setup in
            let (database, client, name, connections, store) = (setup.database, setup.client, setup.name, setup.connections, setup.store)
            try await store.append(to: Fixtures.stream(), expected: .noStream, events: [Fixtures.event()])
            // Open and free, not only asked for (`openCount` counts one being opened) nor only
            // listed by PostgreSQL (it is listed while still being set up): else the first attempt
            // runs on the pool (failed twice in a fresh clone's CI).
            #expect(try await eventually { try await backends(name, on: client).count == 1 && connections.freeCount == 1 })
            let logger = self.logger
            let attempts = Atomic<Int>(0)
            let answer = try await connections.withConnection(orFrom: client) { connection in
                if attempts.add(1, ordering: .relaxed).newValue == 1 {
                    // PostgreSQL ends this session before its first statement is sent.
                    try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 1), logger: logger) { owner in
                        try await owner.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(name)", logger: logger)
                    }
                    for _ in 0..<200 where !connection.isClosed { try await Task.sleep(for: .milliseconds(50)) }
                }
                return try await connection.rows("SELECT current_setting('application_name')", logger: logger).rows[0].decode(String.self)
            }
            #expect(attempts.load(ordering: .relaxed) == 2)
            #expect(answer != name, "the second attempt ran on the pool")
        }
    }

    @Test func atShutdownItsConnectionsCloseAndAppendsUseThePool() async throws {
        try await TestDatabase.withAppClient { database, client in
            let name = "append-test-\(UUID().uuidString.prefix(8))"
            let connections = AppendConnections(
                configuration: try database.ownerURL.appendConnectionConfiguration(role: "lifelog_app", applicationName: name),
                capacity: 3, logger: logger)
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger, appendConnections: connections)
            let stream = Fixtures.stream()
            let running = Task { try await connections.run() }
            var appended: Int64 = 0
            // Appends until one of its own is open (the service may start after the first appends).
            #expect(try await eventually {
                try await store.append(to: stream, expected: .exact(appended), events: [Fixtures.event()])
                appended += 1
                return try await backends(name, on: client).count == 1
            })
            running.cancel()
            try await running.value
            #expect(try await eventually { try await backends(name, on: client).isEmpty })
            #expect(connections.openCount == 0)
            try await store.append(to: stream, expected: .exact(appended), events: [Fixtures.event()])
            #expect(try await backends(name, on: client).isEmpty)
            #expect(try await store.streamVersion(stream.id) == appended + 1)
        }
    }

    /// They send no keep-alive: with one configured for the pool, they close once idle that long.
    @Test func aKeepAliveShorterThanTheIdleLimitClosesThemSooner() throws {
        let configuration = try DatabaseURL(parsing: "postgres://lifelog@127.0.0.1:5432/lifelog").appendConnectionConfiguration()
        func sweeps(_ keepAlive: Duration?) -> Int {
            AppendConnections(configuration: configuration, capacity: 1, keepAlive: keepAlive, logger: logger).idleSweeps
        }
        #expect(sweeps(nil) == 60)
        #expect(sweeps(.seconds(15)) == 15)
        #expect(sweeps(.seconds(600)) == 60)
        #expect(sweeps(.milliseconds(10)) == 1)
    }

    @Test func aConnectionUnusedForItsSweepsCloses() async throws {
        try await withStore(idleSweeps: 2) { setup in
            let (client, name, connections, store) = (setup.client, setup.name, setup.connections, setup.store)
            let stream = Fixtures.stream()
            try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            try await store.append(to: stream, expected: .exact(1), events: [Fixtures.event()])
            #expect(try await eventually { try await backends(name, on: client).count == 1 })
            #expect(try await eventually { try await backends(name, on: client).isEmpty })
            #expect(connections.openCount == 0)
        }
    }
}
