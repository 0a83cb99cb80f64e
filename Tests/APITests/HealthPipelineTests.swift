@testable import API
@testable import Core
import Domain
import EventStore
import Foundation
import PostgresNIO
import Synchronization
@testable import Projections
import Testing
import TestSupport

/// A sync's batches arrive several at a time; each is decided while the one ahead of it is
/// being stored (`CommandPath.decidePipelined`). Whatever the order they land in, and with a
/// second server writing the same user's log in between (whose batches the first server's
/// decisions did not see), every item ends with the value of the last batch stored that sent
/// it, each item is counted inserted once, every item sent is counted once, and the read model
/// is the fold of the log.
@Suite struct HealthPipelineTests {
    static let watch = HealthSource(name: "Synthetic Watch", kind: .watch)
    static let morning = Date(timeIntervalSince1970: 1_717_225_200)  // 2024-06-01T07:00:00Z

    /// Heart rates at minutes of one morning, with their values; every third minute carries a uuid.
    static func intake(_ values: [Int: Double]) -> HealthIntake {
        HealthIntake(samples: values.keys.sorted().map { minute in
            let at = morning.addingTimeInterval(TimeInterval(minute * 60))
            return .init(uuid: minute % 3 == 0 ? "hr-\(minute)" : nil, metric: "heart_rate", value: values[minute] ?? 0, unit: "count/min",
                         start: at, end: at, source: watch, path: "samples[\(minute)]")
        })
    }

    /// `count` batches over 90 minutes, overlapping: some minutes again, some with a new value.
    static func batches(seed: UInt64, count: Int) -> [[Int: Double]] {
        var random = CommandSequenceRandom(seed: seed)
        return (0..<count).map { _ in
            var values: [Int: Double] = [:]
            for _ in 0..<(5 + random.next(25)) {
                let minute = random.next(90)
                values[minute] = 60 + Double(minute + random.next(3))
            }
            return values
        }
    }

    /// Sends `batches` `width` at a time (lane `l` sends every `width`-th batch, one after another,
    /// through `services[l % services.count]`), then checks what the suite says.
    static func sendAndCheck(_ batches: [[Int: Double]], width: Int, through services: [HealthService], owner: UUID,
                             harness: AppHarness) async throws {
        let reports: [Int: HealthIngestionReport] = try await withThrowingTaskGroup(of: [(Int, HealthIngestionReport)].self) { group in
            for lane in 0..<width {
                group.addTask {
                    var sent: [(Int, HealthIngestionReport)] = []
                    for index in stride(from: lane, to: batches.count, by: width) {
                        let report = try await services[lane % services.count].ingest(
                            CommandContext(userId: owner), deviceId: nil, intake(batches[index]), format: "native")
                        sent.append((index, report))
                    }
                    return sent
                }
            }
            var all: [Int: HealthIngestionReport] = [:]
            for try await sent in group { for (index, report) in sent { all[index] = report } }
            return all
        }
        // Each item's value is the one of the last batch stored that sent it (a batch that
        // stored nothing sent only what was there).
        var expected: [Int: (position: LogPosition, value: Double)] = [:]
        for (index, values) in batches.enumerated() {
            let report = try #require(reports[index])
            guard report.inserted + report.updated > 0, let position = report.position else { continue }
            for (minute, value) in values where expected[minute].map({ $0.position < position }) ?? true {
                expected[minute] = (position, value)
            }
        }
        var stored: [Int: Double] = [:]
        let rows = try await harness.client.query("SELECT start_s, value FROM rm_health_records WHERE owner_id = \(owner)", logger: TestDatabase.logger)
        for try await (start, value) in rows.decode((Int64, Double).self) {
            stored[Int((start - Int64(morning.timeIntervalSince1970)) / 60)] = value
        }
        #expect(stored == expected.mapValues(\.value), "an item's stored value is not its last stored batch's")
        let all = Array(reports.values)
        let inserted = all.map(\.inserted).reduce(0, +), counted = all.map { $0.inserted + $0.updated + $0.duplicates }.reduce(0, +)
        let distinct = Set(batches.flatMap(\.keys)).count, sent = batches.map(\.count).reduce(0, +)
        #expect(inserted == distinct, "an item was counted inserted more than once, or not at all")
        #expect(counted == sent, "an item sent was not counted once")

        let health = harness.services.health
        let stream = health.samplesStream(owner)
        let folded = try await health.commands.folded(HealthIngestDecider.self, stream)
        let loaded = try await HealthReadModel(client: harness.client, logger: TestDatabase.logger).decisionState(
            owner, streamId: stream.id, keys: Array(folded.state.byKey.keys), uuids: Array(folded.state.keyByUUID.keys))
        #expect(HealthIngestDecider.State(records: loaded.records) == folded.state, "the read model is not the fold of the log")
        #expect(folded.state.byKey.count == stored.count)
    }

    @Test(arguments: [1, 2] as [UInt64])
    func aSyncsBatchesSentFourAtATimeAreEachDecidedOnTheOnesAheadOfThem(seed: UInt64) async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2024-06-02T10:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "pipeline-\(seed)@example.com"))
            try await Self.sendAndCheck(Self.batches(seed: seed, count: 48), width: 4, through: [harness.services.health], owner: owner, harness: harness)
        }
    }

    @Test(arguments: [3, 4] as [UInt64])
    func twoServersWritingOneUsersLogDecideAgainWhatTheOtherCameBefore(seed: UInt64) async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2024-06-02T10:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "pipeline-two-\(seed)@example.com"))
            // Another server: its own command path, so its own queues and pipeline.
            let store = PostgresEventStore(client: harness.client, keyring: AppHarness.keyring,
                                           hook: InlineProjections(projectors: AreaCatalog.projectors), logger: TestDatabase.logger)
            let other = HealthService(ServiceBasis(store: store, clock: harness.clock, logger: TestDatabase.logger))
            try await Self.sendAndCheck(Self.batches(seed: seed, count: 48), width: 6, through: [harness.services.health, other],
                                        owner: owner, harness: harness)
        }
    }

    /// A batch all of whose items are in the batch ahead of it, still being stored, is nothing
    /// new only once that one is stored: when its append fails (here its connection is ended
    /// while it waits for a lock on the user's stream), the second stores the items itself. It
    /// answered "50 duplicates" at once before, and the items were lost (review finding).
    @Test func aBatchWhoseItemsAreAllInTheBatchAheadWaitsForItToBeStored() async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2024-06-02T10:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "pipeline-ahead@example.com"))
            let health = harness.services.health, context = CommandContext(userId: owner)
            // The user's stream exists (its row is what the lock below holds).
            _ = try await health.ingest(context, deviceId: nil, Self.intake([80: 70]), format: "native")
            let items = Dictionary(uniqueKeysWithValues: (0..<50).map { ($0, 60 + Double($0)) })
            let firstWaits = Flag(), secondAnswered = Flag()
            let outcomes = try await withThrowingTaskGroup(of: (String, HealthIngestionReport?).self) { group in
                group.addTask {
                    try await harness.client.withConnection { connection in
                        _ = try await connection.query("BEGIN", logger: TestDatabase.logger)
                        _ = try await connection.query(
                            "SELECT 1 FROM streams WHERE stream_id = \(HealthEvent.streamId(owner)) FOR UPDATE", logger: TestDatabase.logger)
                        try await PostgresClient.withRunning(harness.database.ownerConfiguration(maximumConnections: 1), logger: TestDatabase.logger) { admin in
                            // The first batch's append waits for the lock (up to 30 s on a busy machine) ...
                            var waiting: Int32?
                            for _ in 0..<600 where waiting == nil {
                                try await Task.sleep(for: .milliseconds(50))
                                for try await pid in try await admin.query("""
                                    SELECT pid FROM pg_stat_activity
                                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%lifelog_append%'
                                    """, logger: TestDatabase.logger).decode(Int32.self) { waiting = pid }
                            }
                            let pid = try #require(waiting, "the first batch never waited for the lock")
                            firstWaits.value.withLock { $0 = true }
                            // ... while the second is decided on it (it answered at once before the fix) ...
                            for _ in 0..<60 where !secondAnswered.value.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
                            // ... then its connection ends, and it is not stored.
                            try await admin.run("SELECT pg_terminate_backend(\(pid))", logger: TestDatabase.logger)
                        }
                        _ = try await connection.query("ROLLBACK", logger: TestDatabase.logger)
                    }
                    return ("lock", nil)
                }
                group.addTask {
                    do { return ("first", try await health.ingest(context, deviceId: nil, Self.intake(items), format: "native")) } catch { return ("first", nil) }
                }
                group.addTask {
                    while !firstWaits.value.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
                    // Its statements after the first batch's connection ended may meet that
                    // connection on its way out of the pool: a 503 the client retries, as here.
                    var report: HealthIngestionReport?
                    for attempt in 0..<5 where report == nil {
                        do {
                            report = try await health.ingest(context, deviceId: nil, Self.intake(items), format: "native")
                        } catch let error where attempt < 4 && !(error is CancellationError) {
                            try await Task.sleep(for: .milliseconds(200))
                        }
                    }
                    secondAnswered.value.withLock { $0 = true }
                    return ("second", report)
                }
                var all: [String: HealthIngestionReport?] = [:]
                for try await (name, report) in group { all[name] = report }
                return all
            }
            let first = outcomes["first"] ?? nil, second = try #require(outcomes["second"] ?? nil)
            #expect(first == nil, "the first batch's append was to fail with its connection")
            #expect([second.inserted, second.duplicates] as [Int] == [50, 0])
            #expect(try await harness.count("SELECT count(*) FROM rm_health_records WHERE owner_id = \(owner)") == 51)
        }
    }

    /// A batch sent with If-Match (no app does; the command path takes it) is stored at that
    /// version of the user's log and refused at another.
    @Test func aBatchWithIfMatchIsStoredOnlyAtThatVersion() async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2024-06-02T10:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "pipeline-if-match@example.com"))
            let health = harness.services.health
            let first = try await health.ingest(CommandContext(userId: owner), deviceId: nil, Self.intake([1: 61]), format: "native")
            let version = try await health.commands.store.streamVersion(health.samplesStream(owner).id)
            await #expect(throws: ResourceError.self) {
                try await health.ingest(CommandContext(userId: owner, ifMatch: version + 1), deviceId: nil, Self.intake([2: 62]), format: "native")
            }
            let second = try await health.ingest(CommandContext(userId: owner, ifMatch: version), deviceId: nil, Self.intake([2: 62]), format: "native")
            #expect([first.inserted, second.inserted] as [Int] == [1, 1])
            #expect(try await harness.count("SELECT count(*) FROM rm_health_records WHERE owner_id = \(owner)") == 2)
        }
    }

    final class Flag: Sendable {
        let value = Mutex(false)
    }
}
