import EventStore
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import TestSupport

/// Inline work that makes some appends slow (held open with pg_sleep) and some roll back.
struct ChaosHook: AppendHook {
    struct Rollback: Error {}

    func didAppend(_ events: [RecordedEvent], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws {
        guard let first = events.first else { return }
        switch first.type {
        case "test.slow":
            try await connection.run("SELECT pg_sleep(0.15)", logger: logger)
        case "test.rollback":
            throw Rollback()
        default:
            break
        }
    }
}

@Suite struct GapSafeReadTests {
    let logger = TestDatabase.logger

    /// Transaction ids order as numbers: 9, 10, 100 (a text sort gives 10, 100, 9). Ids this
    /// small are below any cluster's frontier, so all three are visible.
    @Test func theLogIsReadInNumericTransactionOrder() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                for (tx, stream) in [("10", "t-b"), ("9", "t-a"), ("100", "t-c")] {
                    try await client.run("""
                        INSERT INTO events (transaction_id, event_id, owner_id, stream_id, stream_version, event_type, data, metadata)
                        VALUES (\(tx)::xid8, gen_random_uuid(), gen_random_uuid(), \(stream), 1, 'test', '{}', '{}')
                        """, logger: logger)
                }
                let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
                let all = try await store.readAll(after: .start, limit: 10)
                try #require(all.map(\.streamId) == ["t-a", "t-b", "t-c"])
                let afterFirst = try await store.readAll(after: all[0].position, limit: 10)
                #expect(afterFirst.map(\.streamId) == ["t-b", "t-c"])
            }
        }
    }

    /// The headers the live stream follows (and resumes from) come in the same numeric order, of
    /// the whole log and of one owner: a text sort put 10002 before 9993, the feed's checkpoint
    /// jumped past 9993, and the stream lost those changes (bench/multi/stream-gap).
    @Test func theLiveStreamsHeadersAreInNumericTransactionOrder() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let owner = UUID()
                for (tx, stream) in [("10", "h-b"), ("9", "h-a"), ("100", "h-c")] {
                    try await client.run("""
                        INSERT INTO events (transaction_id, event_id, owner_id, stream_id, stream_version, event_type, data, metadata)
                        VALUES (\(tx)::xid8, gen_random_uuid(), \(owner), \(stream), 1, 'test', '{}', '{}')
                        """, logger: logger)
                }
                for one in [nil, owner] {
                    let all = try await PostgresEventStore.headers(client, after: .start, owner: one, limit: 10, logger: logger)
                    try #require(all.map(\.streamId) == ["h-a", "h-b", "h-c"])
                    let afterFirst = try await PostgresEventStore.headers(client, after: all[0].position, owner: one, limit: 1, logger: logger)
                    #expect(afterFirst.map(\.streamId) == ["h-b"])
                }
            }
        }
    }

    /// 16 writers on shared and private streams, with rolled-back and slow transactions, while a
    /// gap-safe reader follows the log. The reader must end with every committed event exactly
    /// once, none of the rolled-back ones, in checkpoint order and in each stream's version order.
    @Test(arguments: [UInt64(1), 7, 42])
    func readerSeesEveryCommittedEventExactlyOnce(seed: UInt64) async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, hook: ChaosHook(), logger: logger)
            let owner = UUID()
            let shared = (0..<3).map { _ in Fixtures.stream(owner: owner) }
            let writersDone = Flag()

            async let reader: [RecordedEvent] = {
                var seen: [RecordedEvent] = []
                var position = LogPosition.start
                while true {
                    let finished = writersDone.isRaised
                    let batch = try await store.readAll(after: position, limit: 37)
                    if let last = batch.last {
                        #expect(last.position > position)
                        position = last.position
                        seen.append(contentsOf: batch)
                    } else if finished, try await position.isEndOfLog(client: client) {
                        return seen
                    } else {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }()

            let outcomes = try await withThrowingTaskGroup(of: (committed: [UUID], rolledBack: [UUID]).self) { group in
                for writer in 0..<16 {
                    group.addTask {
                        var random = SeededGenerator(seed: seed &* 1_000 &+ UInt64(writer))
                        let own = Fixtures.stream(owner: owner)
                        var committed: [UUID] = []
                        var rolledBack: [UUID] = []
                        for step in 0..<25 {
                            let stream = Bool.random(using: &random) ? own : shared[Int.random(in: 0..<shared.count, using: &random)]
                            let roll = Int.random(in: 0..<10, using: &random)
                            let type = roll == 0 ? "test.rollback" : roll == 1 ? "test.slow" : "test.happened"
                            let events = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                                Fixtures.event(["writer": writer, "step": step], type: type)
                            }
                            do {
                                try await store.append(to: stream, expected: .any, events: events)
                                committed += events.map(\.eventId)
                            } catch is ChaosHook.Rollback {
                                rolledBack += events.map(\.eventId)
                            }
                        }
                        return (committed, rolledBack)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            writersDone.raise()
            let committed = Set(outcomes.flatMap(\.committed))
            let rolledBack = Set(outcomes.flatMap(\.rolledBack))
            let seen = try await reader

            let seenIds = seen.map(\.eventId)
            #expect(seenIds.count == Set(seenIds).count, "no event twice")
            #expect(seenIds.count == committed.count, "as many events as were committed")
            #expect(Set(seenIds).symmetricDifference(committed).isEmpty, "every committed event")
            #expect(Set(seenIds).intersection(rolledBack).isEmpty, "no rolled-back event")
            #expect(!rolledBack.isEmpty)
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.position < $1.position }, "checkpoint order")
            for (_, events) in Dictionary(grouping: seen, by: \.streamId) {
                #expect(events.map(\.streamVersion) == Array(1...Int64(events.count)), "stream order without gaps")
            }
        }
    }
}
