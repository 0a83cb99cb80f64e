@testable import EventStore
import Crypto
import Foundation
import PostgresNIO
import Testing
import TestSupport

/// Crypto-shredding at the log (issue 29): payloads are stored sealed under their owner's key,
/// and once that key is gone what the log holds of the owner cannot be read, while the log
/// itself stays as it was.
@Suite struct SealedPayloadTests {
    let logger = TestDatabase.logger

    static func event(_ text: String) -> NewEvent {
        NewEvent(type: "test.noted", data: #"{"note":"\#(text)"}"#, metadata: EventMetadata(actor: "actor-\(text)"))
    }

    /// Every column of every row of `events`, as PostgreSQL prints it.
    func rawLog(_ client: PostgresClient) async throws -> String {
        let rows = try await client.query("SELECT string_agg(e::text, E'\\n') FROM events e", logger: logger)
        for try await text in rows.decode(String?.self) { return text ?? "" }
        return ""
    }

    @Test func theLogHoldsNoPlainPayloadAndTheStoreOpensIt() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
            let stream = Fixtures.stream()
            let long = String(repeating: "Zebra-lantern ", count: 200)  // deflated before it is sealed
            try await store.append(to: stream, expected: .noStream, events: [Self.event("Quokka-7731"), Self.event(long)])
            let raw = try await rawLog(client)
            #expect(!raw.isEmpty)
            for secret in ["Quokka-7731", "Zebra-lantern", "actor-Quokka", "\"note\""] { #expect(!raw.contains(secret), "\(secret) is readable in the log") }
            let read = try await store.readStream(stream.id)
            #expect(read.map(\.data) == [#"{"note":"Quokka-7731"}"#, #"{"note":"\#(long)"}"#])
            #expect(try read[0].metadata().actor == "actor-Quokka-7731")
            // Another process with the same server key opens them too (its own cache, from the row).
            let other = PostgresEventStore(client: client, keyring: try OwnerKeyring(secrets: AppHarness.keys.map(\.secret)), logger: logger)
            #expect(try await other.readStream(stream.id).map(\.data) == read.map(\.data))
        }
    }

    @Test func aSealedPayloadOpensOnlyForItsOwnEventAndKey() throws {
        let key = SymmetricKey(size: .bits256)
        let binding = SealedPayload.Binding(eventId: UUID(), ownerId: UUID(), streamId: "habit-1", type: "habit.logged", schemaVersion: 1)
        for data in [#"{"a":1}"#, "{\"long\":\"" + String(repeating: "x", count: 4_000) + "\"}"] {
            let sealed = try SealedPayload.seal(data: data, metadata: "{}", binding: binding, key: key)
            #expect(try SealedPayload.open(sealed, binding: binding, key: key).data == data)
            // Another event, owner, stream, type or version, or another key: it does not open.
            var others = [binding, binding, binding, binding, binding]
            others[0].eventId = UUID()
            others[1].ownerId = UUID()
            others[2].streamId = "habit-2"
            others[3].type = "habit.unlogged"
            others[4].schemaVersion = 2
            for other in others {
                #expect(throws: SealedPayload.Unreadable.self) { try SealedPayload.open(sealed, binding: other, key: key) }
            }
            #expect(throws: SealedPayload.Unreadable.self) { try SealedPayload.open(sealed, binding: binding, key: SymmetricKey(size: .bits256)) }
            // The format byte is authenticated too: flipping it is refused, not misread.
            var flipped = sealed
            flipped.setInteger(sealed.getInteger(at: 0, as: UInt8.self) == 1 ? UInt8(2) : UInt8(1), at: 0)
            #expect(throws: SealedPayload.Unreadable.self) { try SealedPayload.open(flipped, binding: binding, key: key) }
        }
    }

    /// The stored layout is a format: events sealed by an earlier release must open in every
    /// later one. This payload was sealed outside Swift (Python's `cryptography`, AES-GCM) from
    /// the layout the type's documentation gives, so a change of the bytes bound to an event or
    /// of their order fails here, not on a user's log.
    @Test func aPayloadSealedFromTheDocumentedLayoutOpens() throws {
        let key = SymmetricKey(data: Data(1...32))
        let binding = SealedPayload.Binding(
            eventId: try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001")),
            ownerId: try #require(UUID(uuidString: "00000000-0000-4000-8000-0000000000aa")),
            streamId: "habit-1", type: "habit.logged", schemaVersion: 1)
        #expect(Self.hex(binding.authenticated(format: 1))
            == "0100000000000040008000000000000001000000000000400080000000000000aa0001000768616269742d31000c68616269742e6c6f67676564")
        let sealed = ByteBuffer(bytes: try #require(Self.bytes(hex:
            "016465666768696a6b6c6d6e6f605f734beaa0dd5bc266d2e36595989f5d167d19b6a013fae2c56571a7")))
        let opened = try SealedPayload.open(sealed, binding: binding, key: key)
        #expect(opened.data == #"{"a":1}"#)
        #expect(opened.metadata == "{}")
        // And what this release seals has the same shape: format, 12-byte nonce, ciphertext, tag.
        let resealed = try SealedPayload.seal(data: #"{"a":1}"#, metadata: "{}", binding: binding, key: key)
        #expect(resealed.readableBytes == sealed.readableBytes)
        #expect(resealed.getInteger(at: 0, as: UInt8.self) == 1)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        let pairs = stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(decoding: digits[$0...($0 + 1)], as: UTF8.self), radix: 16) }
        guard digits.count.isMultiple(of: 2), !pairs.contains(nil) else { return nil }
        return pairs.compactMap { $0 }
    }

    /// Nonces never repeat within a process, and two processes start from different fields.
    @Test func noncesAreUniqueWithinAndApartAcrossSequences() throws {
        let one = NonceSequence(), other = NonceSequence()
        var seen = Set<Data>()
        for _ in 0..<20_000 { seen.insert(Data(try one.next())) }
        #expect(seen.count == 20_000)
        #expect(Data(try one.next()).prefix(8) != Data(try other.next()).prefix(8))
    }

    @Test func withoutItsKeyAnOwnersEventsAreShreddedAndNothingMoreIsWritten() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
                let gone = Fixtures.stream(), kept = Fixtures.stream()
                try await store.append(to: gone, expected: .noStream, events: [Self.event("one"), Self.event("two")])
                try await store.append(to: kept, expected: .noStream, events: [Self.event("three")])
                let before = try await client.query("SELECT count(*)::int FROM events", logger: logger).collect().first?.decode(Int.self)
                try await client.query("INSERT INTO erased_owners (owner_id) VALUES (\(gone.ownerId))", logger: logger)
                try await client.query("DELETE FROM owner_keys WHERE owner_id = \(gone.ownerId)", logger: logger)
                // The log is as it was; its reader passes over what it can no longer open.
                #expect(try await client.query("SELECT count(*)::int FROM events", logger: logger).collect().first?.decode(Int.self) == before)
                // Past the frontier (no append runs here): other suites' transactions hold it back.
                let all = try await client.withConnection { connection in
                    try await PostgresEventStore.readAllUnderExclusiveGate(
                        after: .start, limit: 100, keyring: AppHarness.keyring, on: connection, logger: logger)
                }
                #expect(all.map(\.shredded) == [true, true, false])
                #expect(all.filter(\.shredded).allSatisfy { $0.data == "{}" && $0.type == "test.noted" })
                #expect(all.last?.data == #"{"note":"three"}"#)
                await #expect(throws: EventStoreError.ownerErased(gone.ownerId)) { try await store.readStream(gone.id) }
                // Not even through a process that still had the key cached, nor with a new key.
                await #expect(throws: EventStoreError.ownerErased(gone.ownerId)) {
                    try await store.append(to: gone, expected: .any, events: [Self.event("late")])
                }
                let fresh = PostgresEventStore(client: client, keyring: try OwnerKeyring(secrets: AppHarness.keys.map(\.secret)), logger: logger)
                await #expect(throws: EventStoreError.ownerErased(gone.ownerId)) {
                    try await fresh.append(to: Fixtures.stream(owner: gone.ownerId), expected: .any, events: [Self.event("new")])
                }
            }
        }
    }

    /// A first write racing the erasure of its owner (a process with no key cached): its key
    /// insert waits on the row the erasure deletes and goes ahead once the erasure commits. The
    /// key is then taken back, and the append refused: nothing is written under a key that lives on.
    @Test func aKeyMadeWhileItsOwnerWasBeingErasedIsTakenBack() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let stream = Fixtures.stream()
                try await PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
                    .append(to: stream, expected: .noStream, events: [Self.event("before")])
                let erasing = try await PostgresConnection.connect(
                    configuration: try database.ownerURL.connectionConfiguration(), id: 99, logger: logger)
                try await erasing.query("BEGIN", logger: logger)
                try await erasing.query("INSERT INTO erased_owners (owner_id) VALUES (\(stream.ownerId))", logger: logger)
                try await erasing.query("DELETE FROM owner_keys WHERE owner_id = \(stream.ownerId)", logger: logger)
                let fresh = PostgresEventStore(client: client, keyring: try OwnerKeyring(secrets: AppHarness.keys.map(\.secret)), logger: logger)
                let late = Task { try await fresh.append(to: stream, expected: .any, events: [Self.event("late")]) }
                try await Task.sleep(for: .milliseconds(500))
                try await erasing.query("COMMIT", logger: logger)
                try await erasing.close()
                await #expect(throws: EventStoreError.ownerErased(stream.ownerId)) { try await late.value }
                let keys = try await client.query("SELECT count(*)::int FROM owner_keys WHERE owner_id = \(stream.ownerId)", logger: logger)
                for try await count in keys.decode(Int.self) { #expect(count == 0) }
                let events = try await client.query("SELECT count(*)::int FROM events WHERE owner_id = \(stream.ownerId)", logger: logger)
                for try await count in events.decode(Int.self) { #expect(count == 1) }
            }
        }
    }

    @Test func aRotatedServerKeyRewrapsEveryOwnersKey() async throws {
        try await TestDatabase.withAppClient { _, client in
            let old = try OwnerKeyring(secrets: ["old-server-secret-0123456789-0123456789"])
            let stream = Fixtures.stream()
            try await PostgresEventStore(client: client, keyring: old, logger: logger)
                .append(to: stream, expected: .noStream, events: [Self.event("kept")])
            // Both keys configured, the new one first: the stored key moves to it.
            let both = try OwnerKeyring(secrets: ["new-server-secret-0123456789-0123456789", "old-server-secret-0123456789-0123456789"])
            #expect(try await both.rewrapAll(client: client, logger: logger) == 1)
            #expect(try await both.rewrapAll(client: client, logger: logger) == 0)
            let newOnly = try OwnerKeyring(secrets: ["new-server-secret-0123456789-0123456789"])
            #expect(try await PostgresEventStore(client: client, keyring: newOnly, logger: logger).readStream(stream.id).map(\.data)
                    == [#"{"note":"kept"}"#])
            // A server without the key that wraps them refuses to read rather than invent.
            let stranger = try OwnerKeyring(secrets: ["another-secret-0123456789-0123456789-xyz"])
            await #expect(throws: OwnerKeyring.KeyUnavailable.self) {
                try await PostgresEventStore(client: client, keyring: stranger, logger: logger).readStream(stream.id)
            }
        }
    }

    @Test func eventsStoredBeforeSealingAreSealedOnceAndTheLogStaysAppendOnly() async throws {
        try await TestDatabase.with(migrated: false) { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let all = try Migrator(directory: TestDatabase.schemaDirectory)
                let before = Migrator(migrations: all.migrations.filter { $0.version < 25 })
                try await before.migrate(on: client, logger: logger)
                let owner = UUID()
                for n in 1...3 {
                    try await client.query("""
                        SELECT * FROM lifelog_append(\("old-" + owner.uuidString), \(owner), 'old', NULL, ARRAY[\(UUID())]::uuid[],
                          ARRAY['test.noted']::text[], ARRAY[1]::smallint[], ARRAY[\(#"{"note":"Plain-\#(n)"}"#)::jsonb]::jsonb[],
                          ARRAY['{"actor":"before"}'::jsonb]::jsonb[])
                        """, logger: logger)
                }
                try await all.migrate(on: client, logger: logger)
                #expect(try await PlainPayloads.remain(client: client, logger: logger))
                #expect(try await PlainPayloads.sealAll(client: client, keyring: AppHarness.keyring, logger: logger, batchSize: 2) == 3)
                #expect(try await PlainPayloads.sealAll(client: client, keyring: AppHarness.keyring, logger: logger) == 0)
                #expect(!(try await rawLog(client)).contains("Plain-"))
                let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: logger)
                let read = try await store.readStream("old-" + owner.uuidString)
                #expect(read.map(\.data) == [#"{"note": "Plain-1"}"#, #"{"note": "Plain-2"}"#, #"{"note": "Plain-3"}"#])
                #expect(try read[0].metadata().actor == "before")
                // The trigger is back: the owner cannot change the log.
                await #expect { try await client.query("UPDATE events SET event_type = 'x'", logger: logger) } throws: {
                    PostgresErrors.sqlState($0) == PostgresErrors.appendOnlyViolation
                }
            }
        }
    }
}
