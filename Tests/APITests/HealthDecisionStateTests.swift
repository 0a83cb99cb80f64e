@testable import API
@testable import Core
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
@testable import Projections
import Testing
import TestSupport

/// Health ingestion decides on its read model (`HealthReadModel.decisionState`: the stored items
/// a batch's items could be, by key or uuid), not on a fold of the samples stream. Over random
/// batches (new items, changed values, re-sent ones, deletions by uuid) the state loaded for
/// every item the stream holds equals the fold of the stream's own events (`evolve`) at the same
/// version, and a rebuild of the read model in the middle changes nothing (issue 25 §4).
@Suite struct HealthDecisionStateTests {
    static let watch = HealthSource(name: "Synthetic Watch", kind: .watch)

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theReadModelsStateIsTheFoldOfTheStream(seed: UInt64) async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2024-06-02T10:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "health-fold-\(seed)@example.com"))
            let health = harness.services.health
            let readModel = HealthReadModel(client: harness.client, logger: TestDatabase.logger)
            let stream = health.samplesStream(owner)
            var random = CommandSequenceRandom(seed: seed)
            let morning = Date(timeIntervalSince1970: 1_717_225_200)  // 2024-06-01T07:00:00Z
            var compared = 0

            func check(_ step: Int) async throws {
                let folded = try await health.commands.folded(HealthIngestDecider.self, stream)
                let loaded = try await readModel.decisionState(owner, streamId: stream.id, keys: Array(folded.state.byKey.keys),
                                                               uuids: Array(folded.state.keyByUUID.keys))
                compared += 1
                #expect(folded.streamVersion == loaded.version, "seed \(seed), step \(step): versions")
                #expect(HealthIngestDecider.State(records: loaded.records) == folded.state,
                        "seed \(seed), step \(step): the read model's items are not the fold of the stream")
            }

            for step in 0..<20 {
                let context = CommandContext(userId: owner)
                // Heart rates at random minutes of one morning; some carry a uuid (deletable), some a new value.
                let minutes = Set((0..<(1 + random.next(6))).map { _ in random.next(30) })
                var intake = HealthIntake(samples: minutes.sorted().map { minute in
                    let at = morning.addingTimeInterval(TimeInterval(minute * 60))
                    return .init(uuid: minute % 3 == 0 ? "hr-\(minute)" : nil, metric: "heart_rate", value: 60 + Double(minute + random.next(3)),
                                 unit: "count/min", start: at, end: at, source: Self.watch, path: "samples[\(minute)]")
                })
                if random.next(4) == 0 { intake.deletions = ["hr-\(3 * random.next(10))"] }
                _ = try await health.ingest(context, deviceId: nil, intake, format: "native")
                try await check(step)
                if step == 10 {
                    // Rebuilt from the log halfway: the decisions after it load the same states.
                    try await harness.rebuild(HealthRecordsProjector())
                    try await check(step)
                }
            }
            let items = try await health.commands.folded(HealthIngestDecider.self, stream).state.byKey.count
            #expect(compared >= 20 && items >= 5, "the batches stored items and compared their states (\(items), \(compared))")
        }
    }
}
