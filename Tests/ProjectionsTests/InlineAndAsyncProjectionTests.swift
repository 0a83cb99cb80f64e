import API
import Domain
import Logging
import EventStore
import Foundation
import PostgresNIO
import Projections
import Testing
import TestSupport

@Suite struct InlineAndAsyncProjectionTests {
    let logger = TestDatabase.logger

    @Test func anInlineReadModelIsCurrentWhenTheAppendReturns() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = ProjectionFixtures.store(client)
            let stream = Fixtures.stream("demo")
            try await store.append(to: stream, expected: .noStream, events: [Fixtures.event(type: "demo.created")])
            try await store.append(to: stream, expected: .exact(1), events: [Fixtures.event(type: "demo.logged"), Fixtures.event(type: "demo.logged")])
            let rows = try await client.query("""
                SELECT stream_type, event_count, last_stream_version, last_event_type FROM rm_stream_summary WHERE stream_id = \(stream.id)
                """)
            var found = false
            for try await (type, count, version, last) in rows.decode((String, Int64, Int64, String).self) {
                found = true
                #expect(type == "demo")
                #expect(count == 3)
                #expect(version == 3)
                #expect(last == "demo.logged")
            }
            #expect(found)
        }
    }

    @Test func theSummaryIsKeptByTheAppendsOwnStatementAndOnlyAreasWithWorkOpenATransaction() async throws {
        let hook = InlineProjections(projectors: AreaCatalog.projectors)
        #expect(hook.fusion != nil)
        #expect(!hook.projectors.isEmpty)
        #expect(!hook.hasWork(forTypes: ["demo.created", "demo.logged"]))
        #expect(hook.hasWork(forTypes: ["demo.created", Domain.HabitEvent.Created.type]))
        #expect(InlineProjections(projectors: AreaCatalog.projectors.filter { $0.fusion == nil }).hasWork(forTypes: ["demo.created"]) == false)

        try await TestDatabase.withAppClient { _, client in
            let store = ProjectionFixtures.store(client)
            let stream = Fixtures.stream("demo")
            let batch = (0..<3).map { Fixtures.event(["n": $0], type: "demo.logged") }
            try await store.append(to: stream, expected: .noStream, events: batch)
            // Re-sent twice: the fresh attempt fails (on the event ids, then on the version) and
            // the retry through the replay check answers with what is stored. Neither counts again.
            #expect(try await store.append(to: stream, expected: .any, events: batch).replayed)
            #expect(try await store.append(to: stream, expected: .noStream, events: batch).replayed)
            try await store.append(to: stream, expected: .exact(3), events: [Fixtures.event(type: "demo.closed")])
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: client) == ["\(stream.id)|4|4|demo.closed"])

            // Every column as the projector's own apply writes it (a rebuild runs that one).
            try await ProjectionFixtures.writeHistory(store, appends: 60, seed: 9)
            let fused = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: client)
            try await client.run("DELETE FROM rm_stream_summary", logger: logger)
            try await client.withConnection { connection in
                // Every committed event (the snapshot frontier would wait for other tests' transactions).
                let events = try await PostgresEventStore.readAll(
                    after: .start, below: .max, limit: 10_000, keyring: AppHarness.keyring, on: connection, logger: logger)
                #expect(events.count > 60)
                try await StreamSummaryProjector().apply(events, on: connection, logger: logger)
            }
            #expect(try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: client) == fused)
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: client) == ProjectionFixtures.streamSummaryOracle(client: client))
        }
    }

    @Test func aFailingInlineProjectorRollsTheAppendBack() async throws {
        struct Failing: Projector {
            let name = "failing"
            let mode = ProjectorMode.inline
            let tables: [String] = []
            let eventTypes: [String]? = ["test.poison"]
            struct Boom: Error {}
            func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws { throw Boom() }
        }
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, hook: InlineProjections(projectors: AreaCatalog.projectors + [Failing()]), logger: logger)
            let stream = Fixtures.stream()
            await #expect(throws: Failing.Boom.self) {
                try await store.append(to: stream, expected: .any, events: [Fixtures.event(type: "test.poison")])
            }
            let version = try await store.streamVersion(stream.id)
            let summaries = try await ProjectionFixtures.streamSummaryFacts(client: client)
            #expect(version == 0)
            #expect(summaries.isEmpty)
        }
    }

    @Test func anAsyncProjectorAppliesEachEventOnceAcrossRunsAndInstances() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = ProjectionFixtures.store(client)
            try await ProjectionFixtures.writeHistory(store, appends: 120, seed: 3)
            let runners = (0..<3).map { _ in AsyncProjectorRunner(projector: OwnerActivityProjector(), client: client, keyring: AppHarness.keyring, batchSize: 17, logger: logger) }
            // Three instances race; the projector lock and the checkpoint make them take turns.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for runner in runners { group.addTask { try await runner.catchUp() } }
                try await group.waitForAll()
            }
            try await CatchUp.fully(runners[0])
            #expect(try await runners[0].catchUp() == 0)
            #expect(try await ProjectionFixtures.activityFacts(client: client) == ProjectionFixtures.activityOracle(client: client))

            try await ProjectionFixtures.writeHistory(store, appends: 10, seed: 4)
            try await CatchUp.fully(runners[1])
            #expect(try await ProjectionFixtures.activityFacts(client: client) == ProjectionFixtures.activityOracle(client: client))

            let status = try await ProjectorStatus.load(AreaCatalog.projectors, client: client, logger: logger)
            let activity = try #require(status.first { $0.name == "owner_activity" })
            #expect(activity.lagEvents == 0)
            #expect(activity.checkpoint != nil)
            #expect(status.first { $0.name == "stream_summary" }?.mode == .inline)
        }
    }

    /// A projector of a few event types moves its checkpoint past the other events once they are
    /// many, instead of scanning them again at every wake-up; it never skips one of its own.
    @Test func aTypedAsyncProjectorMovesPastOtherEventsWithoutMissingItsOwn() async throws {
        final class Wanted: Projector, @unchecked Sendable {
            let name = "test_wanted"
            let mode = ProjectorMode.async
            let tables: [String] = []
            let eventTypes: [String]? = ["test.wanted"]
            let lock = NSLock()
            var seen: [String] = []
            func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
                lock.withLock { seen += events.map(\.data) }
            }
        }
        try await TestDatabase.withAppClient { _, client in
            let store = ProjectionFixtures.store(client)
            let projector = Wanted()
            let runner = AsyncProjectorRunner(projector: projector, client: client, keyring: AppHarness.keyring, logger: logger)
            func others(_ count: Int) async throws {
                for _ in 0..<count { try await store.append(to: Fixtures.stream(), expected: .noStream, events: [Fixtures.event(type: "demo.logged")]) }
            }
            func wanted(_ n: Int) async throws {
                try await store.append(to: Fixtures.stream(), expected: .noStream, events: [Fixtures.event(["n": n], type: "test.wanted")])
            }
            func checkpoint() async throws -> Int64 {
                let rows = try await client.query("SELECT global_position FROM projection_checkpoints WHERE projector = 'test_wanted'")
                for try await position in rows.decode(Int64.self) { return position }
                return 0
            }
            func last() async throws -> Int64 {
                let rows = try await client.query("SELECT max(global_position) FROM events")
                for try await position in rows.decode(Int64.self) { return position }
                return 0
            }
            // A few others: not worth a write.
            try await others(10)
            try await CatchUp.fully(runner)
            #expect(try await checkpoint() == 0)
            // Many: the checkpoint passes them, to within fewer than 256 of the end (a frontier that
            // other tests' transactions held back may have let it stop short, and the rest are too
            // few to be worth a write).
            func caughtUp(within distance: Int64) async throws -> Bool {
                // Up to 30 s: the whole suite's tests share the cluster, and its frontier.
                for _ in 0..<600 {
                    try await CatchUp.fully(runner)
                    let (at, end) = (try await checkpoint(), try await last())
                    if at > 0, end - at < distance { return true }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return false
            }
            func caughtUpToTheEnd() async throws -> Bool { try await caughtUp(within: 1) }
            try await others(300)
            #expect(try await caughtUp(within: 256))
            // Its own, between others: applied once each, and the checkpoint ends at the log's end.
            try await wanted(1)
            try await others(5)
            try await wanted(2)
            #expect(try await caughtUpToTheEnd())
            #expect(projector.lock.withLock { projector.seen }.map { $0.replacingOccurrences(of: " ", with: "") } == [#"{"n":1}"#, #"{"n":2}"#])
        }
    }

    @Test func statusReportsLagUntilTheProjectorCatchesUp() async throws {
        try await TestDatabase.withAppClient { _, client in
            let written = try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(client), appends: 20, seed: 5)
            let before = try await ProjectorStatus.load([OwnerActivityProjector()], client: client, logger: logger)
            #expect(before.first?.lagEvents == Int64(written))
            #expect((before.first?.lagSeconds ?? -1) >= 0)
            try await CatchUp.fully(AsyncProjectorRunner(projector: OwnerActivityProjector(), client: client, keyring: AppHarness.keyring, logger: logger))
            let after = try await ProjectorStatus.load([OwnerActivityProjector()], client: client, logger: logger)
            #expect(after.first?.lagEvents == 0)
            #expect(after.first?.lagSeconds == 0)
        }
    }

    @Test func theDaemonWakesOnNotifyAndFollowsTheLog() async throws {
        try await TestDatabase.withAppClient { database, client in
            let store = ProjectionFixtures.store(client)
            let runner = AsyncProjectorRunner(projector: OwnerActivityProjector(), client: client, keyring: AppHarness.keyring, logger: logger)
            // A long poll interval: only the notification (and the re-check while other databases'
            // transactions hold the cluster-wide frontier back) can catch up within the deadline.
            let daemon = AsyncProjectionDaemon(
                runners: [runner], listener: try database.ownerURL.connectionConfiguration(), pollInterval: .seconds(60), logger: logger)
            // Appends no longer notify in their transaction: the appending process's waker does, after the commit.
            let waker = ReaderWaker(client: client, logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await daemon.run() }
                group.addTask { try await waker.run() }
                try await Task.sleep(for: .milliseconds(300))
                for round in 0..<5 {
                    try await ProjectionFixtures.writeHistory(store, appends: 5, seed: UInt64(10 + round))
                    let deadline = ContinuousClock.now + .seconds(30)
                    var caughtUp = false
                    while ContinuousClock.now < deadline {
                        if try await ProjectionFixtures.activityFacts(client: client) == ProjectionFixtures.activityOracle(client: client) {
                            caughtUp = true
                            break
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    #expect(caughtUp, "round \(round)")
                }
                group.cancelAll()
            }
        }
    }
}
