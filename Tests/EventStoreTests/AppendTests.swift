@testable import EventStore
import Crypto
import Foundation
import PostgresNIO
import Synchronization
import Testing
import TestSupport

@Suite struct AppendTests {
    let logger = TestDatabase.logger

    @Test func appendsAndReadsAStreamInOrder() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let stream = Fixtures.stream()
            let first = try await store.append(to: stream, expected: .noStream, events: [Fixtures.event(["n": 1]), Fixtures.event(["n": 2])])
            #expect(first.events.map(\.streamVersion) == [1, 2])
            #expect(!first.replayed)
            let second = try await store.append(to: stream, expected: .exact(2), events: [Fixtures.event(["n": 3])])
            #expect(second.streamVersion == 3)
            let read = try await store.readStream(stream.id)
            #expect(read.map(\.streamVersion) == [1, 2, 3])
            // Byte for byte as appended: the log keeps the sealed text, not jsonb's reprint of it.
            #expect(read.map(\.data) == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
            #expect(read.allSatisfy { $0.ownerId == stream.ownerId })
            #expect(try read[0].metadata().actor == "test")
            #expect(try await store.streamVersion(stream.id) == 3)
        }
    }

    @Test func wrongExpectedVersionIsATypedErrorWithBothVersions() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let stream = Fixtures.stream()
            try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            await #expect(throws: EventStoreError.wrongExpectedVersion(stream: stream.id, expected: .noStream, actual: 1)) {
                try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            }
            await #expect(throws: EventStoreError.wrongExpectedVersion(stream: stream.id, expected: .exact(5), actual: 1)) {
                try await store.append(to: stream, expected: .exact(5), events: [Fixtures.event()])
            }
            let other = Fixtures.stream()
            await #expect(throws: EventStoreError.wrongExpectedVersion(stream: other.id, expected: .exact(1), actual: 0)) {
                try await store.append(to: other, expected: .exact(1), events: [Fixtures.event()])
            }
            // Nothing of the refused appends was stored, not even the stream row.
            #expect(try await store.readStream(stream.id).count == 1)
            #expect(try await store.streamVersion(other.id) == 0)
        }
    }

    @Test func racingWritersWithTheSameExpectedVersion() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            for round in 0..<10 {
                let stream = Fixtures.stream()
                try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
                let outcomes = await withTaskGroup(of: Result<AppendResult, any Error>.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            do { return .success(try await store.append(to: stream, expected: .exact(1), events: [Fixtures.event(["round": round])])) }
                            catch { return .failure(error) }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                let winners = outcomes.compactMap { try? $0.get() }
                let losers = outcomes.compactMap { outcome -> (any Error)? in
                    if case .failure(let error) = outcome { return error } else { return nil }
                }
                #expect(winners.count == 1)
                #expect(losers.count == 1)
                #expect(losers.first as? EventStoreError == .wrongExpectedVersion(stream: stream.id, expected: .exact(1), actual: 2))
                #expect(try await store.readStream(stream.id).map(\.streamVersion) == [1, 2])
            }
        }
    }

    @Test func reSendingStoredEventIdsReplaysTheOriginal() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let stream = Fixtures.stream()
            let events = [Fixtures.event(["n": 1]), Fixtures.event(["n": 2])]
            let original = try await store.append(to: stream, expected: .noStream, events: events)
            let third = [Fixtures.event(["n": 3])]
            let thirdStored = try await store.append(to: stream, expected: .exact(2), events: third)
            // The retry carries a stale expected version and another body: the stored events win.
            var retried = events
            retried[0].data = #"{"n": 99}"#
            let replay = try await store.append(to: stream, expected: .noStream, events: retried)
            #expect(replay.replayed)
            #expect(replay.events.map(\.globalPosition) == original.events.map(\.globalPosition))
            #expect(replay.events.map(\.data) == [#"{"n":1}"#, #"{"n":2}"#])
            #expect(try await store.readStream(stream.id).count == 3)
            // Without an expected version the first attempt fails on the event ids, not on the
            // version: a replay too, in a transaction of its own or beside other work.
            let anyVersion = try await store.append(to: stream, expected: .any, events: events)
            #expect(anyVersion.replayed && anyVersion.events.map(\.globalPosition) == original.events.map(\.globalPosition))
            let exact = try await store.append(to: stream, expected: .exact(2), events: third)
            #expect(exact.replayed && exact.events.map(\.globalPosition) == thirdStored.events.map(\.globalPosition))
            let ranAlso = Mutex(false)
            for expected in [ExpectedVersion.any, .noStream] {
                let inTransaction = try await store.append(to: stream, expected: expected, events: events, also: { _, _ in ranAlso.withLock { $0 = true } })
                #expect(inTransaction.replayed && inTransaction.events.map(\.globalPosition) == original.events.map(\.globalPosition))
            }
            #expect(!ranAlso.withLock { $0 })
            #expect(try await store.readStream(stream.id).count == 3)

            // The same id in another stream, or mixed with new ids, is a conflict, not a replay.
            await #expect(throws: EventStoreError.eventIdConflict(stream: "test-other")) {
                try await store.append(to: StreamName(id: "test-other", ownerId: stream.ownerId, type: "test"), expected: .any, events: [events[0]])
            }
            await #expect(throws: EventStoreError.eventIdConflict(stream: stream.id)) {
                try await store.append(to: stream, expected: .any, events: [events[0], Fixtures.event()])
            }
            #expect(try await store.readStream(stream.id).count == 3)
        }
    }

    @Test func concurrentRetriesOfOneBatchStoreItOnce() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let stream = Fixtures.stream()
            let event = Fixtures.event()
            let results = try await withThrowingTaskGroup(of: AppendResult.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await store.append(to: stream, expected: .any, events: [event]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.events[0].globalPosition)).count == 1)
            #expect(results.filter { !$0.replayed }.count == 1)
            #expect(try await store.readStream(stream.id).count == 1)
        }
    }

    @Test func aStreamBelongsToOneOwner() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let stream = Fixtures.stream()
            try await store.append(to: stream, expected: .noStream, events: [Fixtures.event()])
            var stolen = stream
            stolen.ownerId = UUID()
            await #expect(throws: EventStoreError.streamOwnedByAnotherOwner(stream: stream.id)) {
                try await store.append(to: stolen, expected: .any, events: [Fixtures.event()])
            }
            // Ids already stored in another stream, sent to a stream of another owner: the
            // conflict is named, as when the check ran first (the first attempt meets the owner).
            let elsewhere = [Fixtures.event()]
            try await store.append(to: Fixtures.stream(), expected: .noStream, events: elsewhere)
            await #expect(throws: EventStoreError.eventIdConflict(stream: stream.id)) {
                try await store.append(to: stolen, expected: .any, events: elsewhere)
            }
        }
    }

    @Test func invalidJSONIsATypedErrorAndStoresNothing() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let stream = Fixtures.stream()
            var bad = Fixtures.event()
            bad.data = "{not json"
            await #expect {
                try await store.append(to: stream, expected: .any, events: [Fixtures.event(), bad])
            } throws: { error in
                if case EventStoreError.invalidEventData = error { return true }
                return false
            }
            let version = try await store.streamVersion(stream.id)
            #expect(version == 0)
        }
    }

    @Test func anAppendMustBeTheFirstWriteOfItsTransaction() async throws {
        try await TestDatabase.withAppClient { _, client in
            let stream = Fixtures.stream()
            let event = Fixtures.event()
            let binding = SealedPayload.Binding(eventId: event.eventId, ownerId: stream.ownerId, streamId: stream.id, type: event.type, schemaVersion: 1)
            let sealed = try SealedPayload.seal(data: event.data, metadata: "{}", binding: binding, key: SymmetricKey(size: .bits256))
            let arguments = PostgresEventStore.appendArguments(stream: stream, expected: .any, events: [event], sealed: [sealed])
            // Both functions: the first attempt's (without the replay check) and the retry's.
            let calls: [any AppendCall] = [FreshAppendStatement(arguments: arguments), AppendStatement(arguments: arguments)]
            for call in calls {
                await #expect {
                    try await client.transaction(logger: logger) { connection in
                        try await connection.run("INSERT INTO projection_checkpoints VALUES ('x', '1'::xid8, 1)", logger: logger)
                        for try await _ in try await connection.execute(call, logger: logger) {}
                    }
                } throws: { PostgresErrors.sqlState($0) == PostgresErrors.appendNotFirstWrite }
            }
        }
    }
}
