import EventStore
import Foundation
import PostgresNIO
import Projections
import Testing
import HummingbirdTesting
import TestSupport

@Suite struct RebuildTests {
    let logger = TestDatabase.logger
    struct SimulatedCrash: Error {}

    /// Runs `body` with an app-role client (the server) and an owner client (the CLI).
    func withClients(_ body: (PostgresClient, PostgresClient) async throws -> Void) async throws {
        try await TestDatabase.withAppClient { database, app in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { owner in
                try await body(app, owner)
            }
        }
    }

    @Test func aRebuiltInlineModelEqualsTheInlineOne() async throws {
        try await withClients { app, owner in
            try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(app), appends: 300, seed: 21)
            let inline = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)
            let indexes = try await ProjectionFixtures.indexNames("rm_stream_summary", client: app)
            #expect(inline.count > 50)

            let report = try await ProjectionRebuilder(client: owner, logger: logger, batchSize: 64).rebuild(StreamSummaryProjector())
            #expect(!report.resumed)
            let rebuilt = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)
            #expect(rebuilt.count == inline.count)
            #expect(rebuilt.difference(from: inline).map { "\($0)" }.prefix(4).joined(separator: "\n") == "")
            #expect(try await ProjectionFixtures.indexNames("rm_stream_summary", client: app) == indexes)
            // The server role can still write the swapped-in table.
            try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(app), appends: 5, seed: 22)
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: app) == ProjectionFixtures.streamSummaryOracle(client: app))
        }
    }

    @Test func anInterruptedRebuildLeavesTheLiveModelAndTheNextRunFinishes() async throws {
        try await withClients { app, owner in
            let store = ProjectionFixtures.store(app)
            try await ProjectionFixtures.writeHistory(store, appends: 200, seed: 31)
            let before = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)
            let rebuilder = ProjectionRebuilder(client: owner, logger: logger, batchSize: 40)

            await #expect(throws: SimulatedCrash.self) {
                try await rebuilder.rebuild(StreamSummaryProjector()) { progress in
                    if progress.eventsApplied >= 120 { throw SimulatedCrash() }
                }
            }
            #expect(try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app) == before)
            // The live model keeps working while the shadow copy waits.
            try await ProjectionFixtures.writeHistory(store, appends: 30, seed: 32)
            let live = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)

            let report = try await rebuilder.rebuild(StreamSummaryProjector())
            #expect(report.resumed)
            #expect(try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app) == live)
        }
    }

    @Test func writesDuringARebuildAreInTheResult() async throws {
        try await withClients { app, owner in
            let store = ProjectionFixtures.store(app)
            try await ProjectionFixtures.writeHistory(store, appends: 300, seed: 41)
            let writing = Flag()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var seed: UInt64 = 100
                    while !writing.isRaised {
                        try await ProjectionFixtures.writeHistory(store, appends: 3, seed: seed)
                        seed += 1
                    }
                }
                let rebuilder = ProjectionRebuilder(client: owner, logger: logger, batchSize: 25)
                _ = try await rebuilder.rebuild(StreamSummaryProjector())
                _ = try await rebuilder.rebuild(OwnerActivityProjector())
                writing.raise()
                try await group.waitForAll()
            }
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: app) == ProjectionFixtures.streamSummaryOracle(client: app))
            // The async model resumes from the checkpoint the cutover wrote, without double counting.
            try await CatchUp.fully(AsyncProjectorRunner(projector: OwnerActivityProjector(), client: app, logger: logger), client: app, projector: "owner_activity")
            #expect(try await ProjectionFixtures.activityFacts(client: app) == ProjectionFixtures.activityOracle(client: app))
        }
    }

    @Test func twoRebuildsOfOneProjectorDoNotRunAtOnce() async throws {
        try await withClients { app, owner in
            try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(app), appends: 100, seed: 51)
            let started = Flag()
            let release = Flag()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await ProjectionRebuilder(client: owner, logger: logger, batchSize: 10).rebuild(StreamSummaryProjector()) { _ in
                        started.raise()
                        while !release.isRaised { Thread.sleep(forTimeInterval: 0.01) }
                    }
                }
                while !started.isRaised { try await Task.sleep(for: .milliseconds(5)) }
                await #expect(throws: RebuildError.alreadyRunning("stream_summary")) {
                    try await ProjectionRebuilder(client: owner, logger: logger).rebuild(StreamSummaryProjector())
                }
                release.raise()
                try await group.waitForAll()
            }
        }
    }
}

@Suite struct AccountsRebuildTests {
    @Test func theAccountsModelRebuildsToWhatTheInlineProjectorBuilt() async throws {
        try await AppHarness.with { harness, http in
            for n in 0..<6 {
                let token = try #require(try await http.register("rebuild\(n)@example.com").string("access_token"))
                _ = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"day_start_hour":\#(n),"language":"ru"}"#)
                let device = try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"Phone \#(n)","kind":"phone"}"#)
                if n % 2 == 0, let id = device.string("id") {
                    _ = try await http.call(.delete, "/api/v1/devices/\(id)", token: token)
                }
            }
            let users = try await ProjectionFixtures.dump("rm_users", orderBy: "user_id", client: harness.client)
            let devices = try await ProjectionFixtures.dump("rm_devices", orderBy: "device_id", client: harness.client)
            try await PostgresClient.withRunning(harness.database.ownerConfiguration(), logger: TestDatabase.logger) { owner in
                _ = try await ProjectionRebuilder(client: owner, logger: TestDatabase.logger, batchSize: 7).rebuild(AccountsProjector())
            }
            #expect(try await ProjectionFixtures.dump("rm_users", orderBy: "user_id", client: harness.client) == users)
            #expect(try await ProjectionFixtures.dump("rm_devices", orderBy: "device_id", client: harness.client) == devices)
            // Still the live model: logins and profile reads work after the swap.
            let login = try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"rebuild1@example.com","password":"correct horse battery"}"#)
            #expect(login.status == .ok)
        }
    }
}
