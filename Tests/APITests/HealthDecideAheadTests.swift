import API
@testable import Core
import Domain
import EventStore
import Foundation
import PostgresNIO
import Projections
import Testing
import TestSupport

/// Batches decided while the one before them is still being stored (`lifelog import`, issue 12):
/// the same counts and the same stored items as one batch after another, and another writer in
/// between is caught, not overwritten.
@Suite struct HealthDecideAheadTests {
    static let watch = HealthSource(name: "Synthetic Watch", kind: .watch)

    /// Heart rates at minutes `minutes` of a fixed morning, each worth 60 + its minute (+ `plus`).
    static func intake(_ minutes: [Int], plus: Double = 0) -> HealthIntake {
        let morning = Date(timeIntervalSince1970: 1_717_225_200)  // 2024-06-01T07:00:00Z
        return HealthIntake(samples: minutes.map { minute in
            let at = morning.addingTimeInterval(TimeInterval(minute * 60))
            return .init(metric: "heart_rate", value: 60 + Double(minute) + plus, unit: "count/min", start: at, end: at, source: watch,
                         path: "samples[\(minute)]")
        })
    }

    static func with(_ body: @Sendable (HealthService, UUID, PostgresClient) async throws -> Void) async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2024-06-02T10:00:00Z") ?? Date()) { harness, http in
            let token = try #require(try await http.register("ahead@example.com").string("access_token"))
            let owner = try #require(UUID(uuidString: try await http.call(.get, "/api/v1/me", token: token).string("id") ?? ""))
            let store = PostgresEventStore(client: harness.client, keyring: AppHarness.keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: TestDatabase.logger)
            try await body(HealthService(ServiceBasis(store: store, clock: harness.clock, logger: TestDatabase.logger)), owner, harness.client)
        }
    }

    static func stored(_ owner: UUID, on client: PostgresClient) async throws -> [Double] {
        let rows = try await client.query("SELECT value FROM rm_health_records WHERE owner_id = \(owner) ORDER BY start_s")
        return try await rows.decode(Double.self).reduce(into: []) { $0.append($1) }
    }

    @Test func aBatchDecidedBeforeTheOneAheadIsStoredCountsItsItemsOnce() async throws {
        try await Self.with { health, owner, client in
            let context = CommandContext(userId: owner)
            // B repeats two of A's items, one of them with a new value, and adds one; both are
            // decided before either is stored, so B's decision cannot read A's items yet.
            let a = try await health.decideAhead(context, deviceId: nil, Self.intake([1, 2, 3]), format: "apple_export", after: nil)
            let b = try await health.decideAhead(context, deviceId: nil, Self.intake([2, 4]) + Self.intake([3], plus: 5), format: "apple_export", after: a)
            let first = try await health.append(a), second = try await health.append(b)
            #expect([first.inserted, first.updated, first.duplicates] as [Int] == [3, 0, 0])
            #expect([second.inserted, second.updated, second.duplicates] as [Int] == [1, 1, 1])
            // Decided after B is stored: the read sees B itself, nothing is folded in twice.
            let c = try await health.decideAhead(context, deviceId: nil, Self.intake([1, 2, 3, 4], plus: 0), format: "apple_export", after: b)
            let third = try await health.append(c)
            #expect([third.inserted, third.updated, third.duplicates] as [Int] == [0, 1, 3])
            #expect(try await Self.stored(owner, on: client) == [61, 62, 63, 64])
        }
    }

    @Test func anotherWriterInBetweenIsCaughtAndTheBatchIsNotStored() async throws {
        try await Self.with { health, owner, client in
            let context = CommandContext(userId: owner)
            let a = try await health.decideAhead(context, deviceId: nil, Self.intake([1]), format: "apple_export", after: nil)
            let b = try await health.decideAhead(context, deviceId: nil, Self.intake([1], plus: 9), format: "apple_export", after: a)
            _ = try await health.append(a)
            // The phone syncs between them: B was decided on a log that no longer is.
            _ = try await health.ingest(context, deviceId: nil, Self.intake([2]), format: "native")
            await #expect(throws: EventStoreError.self) { try await health.append(b) }
            await #expect(throws: EventStoreError.self) {
                try await health.decideAhead(context, deviceId: nil, Self.intake([3]), format: "apple_export", after: a)
            }
            #expect(try await Self.stored(owner, on: client) == [61, 62])
            // The ordinary way stores it on what the log now holds.
            let again = try await health.ingest(context, deviceId: nil, Self.intake([1], plus: 9), format: "apple_export")
            #expect([again.inserted, again.updated] as [Int] == [0, 1])
            #expect(try await Self.stored(owner, on: client) == [70, 62])
        }
    }
}

extension HealthIntake {
    static func + (lhs: HealthIntake, rhs: HealthIntake) -> HealthIntake {
        var joined = lhs
        joined.append(rhs)
        return joined
    }
}
