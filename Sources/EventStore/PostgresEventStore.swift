import Crypto
import Foundation
import Logging
import PostgresNIO

/// The append-only log in PostgreSQL (DESIGN §2).
public struct PostgresEventStore: Sendable {
    public let client: PostgresClient
    /// Every owner's data key: payloads are sealed on the way in and opened on the way out.
    public let keyring: OwnerKeyring
    public let hook: (any AppendHook)?
    /// Rung after every commit that stored events, for `ReaderWaker` to wake the async readers.
    public let commits: CommitSignal
    let logger: Logger

    /// `commits` defaults to the client's own signal, which a `ReaderWaker` on the same client follows.
    public init(client: PostgresClient, keyring: OwnerKeyring, hook: (any AppendHook)? = nil, logger: Logger, commits: CommitSignal? = nil) {
        self.client = client
        self.keyring = keyring
        self.hook = hook
        self.commits = commits ?? CommitSignal.of(client)
        self.logger = logger
    }

    // MARK: Append

    /// Appends `events` to `stream` if it is at `expected`, in one transaction with the inline
    /// projectors. Re-sending a batch whose event ids are already stored returns the stored events.
    /// Work that commits or rolls back with an append, after the inline projectors: security
    /// state that must change exactly when an event is stored (a password hash, a revocation).
    public typealias AlsoInTransaction = @Sendable (PostgresConnection, AppendResult) async throws -> Void

    @discardableResult
    public func append(
        to stream: StreamName, expected: ExpectedVersion, events: [NewEvent], also: AlsoInTransaction? = nil
    ) async throws -> AppendResult {
        guard !events.isEmpty else { throw EventStoreError.emptyAppend }
        guard Set(events.map(\.eventId)).count == events.count else { throw EventStoreError.eventIdConflict(stream: stream.id) }
        for event in events { try SealedPayload.checkStorable(event.data) }
        let result: AppendResult
        do {
            // First without the replay check (schema/0018): a batch stored before fails there,
            // on its event ids or on the version it expected, and is then looked up.
            result = try await appendOnce(to: stream, expected: expected, events: events, also: also, fresh: true)
        } catch let error where Self.isEventIdViolation(error) || Self.mayBeARetry(error) {
            do {
                result = try await appendOnce(to: stream, expected: expected, events: events, also: also, fresh: false)
            } catch let error where Self.isEventIdViolation(error) {
                // A concurrent append stored one of these event ids first (in another stream, so
                // no stream lock ordered us). Retrying sees it and replays or reports the conflict.
                result = try await appendOnce(to: stream, expected: expected, events: events, also: also, fresh: false)
            }
        }
        // Committed: now the readers may be woken (never from inside the transaction, see ReaderWaker).
        if !result.replayed { commits.ring() }
        return result
    }

    static func isEventIdViolation(_ error: any Error) -> Bool {
        PostgresErrors.sqlState(error) == PostgresErrors.uniqueViolation && PostgresErrors.constraint(error) == "events_event_id_key"
    }

    /// The errors a batch stored before meets on its first attempt: the stream has moved past
    /// the version it expected, or (stored in another owner's stream) the owner check; the
    /// retry's lookup tells a replay or a conflict from a real mismatch.
    static func mayBeARetry(_ error: any Error) -> Bool {
        switch error {
        case EventStoreError.wrongExpectedVersion, EventStoreError.streamOwnedByAnotherOwner: true
        default: false
        }
    }

    /// One attempt in its own transaction; `fresh` calls `lifelog_append_fresh`, which skips the
    /// replay check.
    private func appendOnce(to stream: StreamName, expected: ExpectedVersion, events: [NewEvent], also: AlsoInTransaction?, fresh: Bool) async throws -> AppendResult {
        let metadata = try Self.encodeMetadata(events)
        let key: SymmetricKey
        do {
            key = try await keyring.sealingKey(for: stream.ownerId, client: client, logger: logger)
        } catch {
            throw Self.translate(error, stream: stream, expected: expected)
        }
        let sealed = try zip(events, metadata).map { event, metadata in
            try SealedPayload.seal(data: event.data, metadata: metadata, eventId: event.eventId, key: key)
        }
        let arguments = Self.appendArguments(stream: stream, expected: expected, events: events, sealed: sealed)
        let query: any AppendCall = fresh ? FreshAppendStatement(arguments: arguments) : AppendStatement(arguments: arguments)
        let keyring = self.keyring
        do {
            if hook != nil || also != nil {
                let hook = self.hook
                return try await client.transaction(logger: logger) { connection in
                    let result = try await Self.runAppend(
                        query, stream: stream, events: events, metadata: metadata, keyring: keyring, on: connection, logger: logger)
                    if !result.replayed {
                        try await hook?.didAppend(result.events, keyring: keyring, on: connection, logger: logger)
                        try await also?(connection, result)
                    }
                    return result
                }
            }
            // Without inline work the single statement is its own transaction: one round trip.
            return try await client.withConnection { connection in
                try await Self.runAppend(query, stream: stream, events: events, metadata: metadata, keyring: keyring, on: connection, logger: logger)
            }
        } catch {
            let translated = Self.translate(error, stream: stream, expected: expected)
            if case EventStoreError.ownerErased = translated { keyring.forget(stream.ownerId) }
            throw translated
        }
    }

    static func appendArguments(stream: StreamName, expected: ExpectedVersion, events: [NewEvent], sealed: [ByteBuffer]) -> AppendArguments {
        AppendArguments(streamId: stream.id, ownerId: stream.ownerId, streamType: stream.type, expected: expected.sqlValue,
                        eventIds: events.map(\.eventId), types: events.map(\.type), schemaVersions: events.map(\.schemaVersion),
                        sealed: sealed)
    }

    static func runAppend(
        _ statement: some AppendCall, stream: StreamName, events: [NewEvent], metadata: [String], keyring: OwnerKeyring,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> AppendResult {
        let rows = try await connection.prepared(statement, logger: logger)
        var recorded: [RecordedEvent] = []
        recorded.reserveCapacity(events.count)
        var replayed = false
        var index = 0
        for (position, version, transaction, recordedAt, wasReplayed) in rows {
            guard index < events.count else { break }
            let event = events[index]
            recorded.append(RecordedEvent(
                position: try LogPosition(transactionText: transaction, globalPosition: position),
                eventId: event.eventId, ownerId: stream.ownerId, streamId: stream.id, streamVersion: version,
                type: event.type, schemaVersion: event.schemaVersion, data: event.data,
                metadataJSON: metadata[index], recordedAt: recordedAt))
            replayed = wasReplayed
            index += 1
        }
        if replayed {
            // A replay hands back what is stored, which may differ from what was re-sent.
            let stored = try await readEvents(ids: events.map(\.eventId), keyring: keyring, on: connection, logger: logger)
            if stored.contains(where: \.shredded) { throw EventStoreError.ownerErased(stream.ownerId) }
            return AppendResult(events: stored, replayed: true)
        }
        return AppendResult(events: recorded, replayed: false)
    }

    static func translate(_ error: any Error, stream: StreamName, expected: ExpectedVersion) -> any Error {
        let unwrapped = PostgresErrors.unwrap(error)
        switch PostgresErrors.sqlState(unwrapped) {
        case PostgresErrors.wrongExpectedVersion?:
            let actual = PostgresErrors.detail(unwrapped).flatMap { Int64($0) } ?? -1
            return EventStoreError.wrongExpectedVersion(stream: stream.id, expected: expected, actual: actual)
        case PostgresErrors.eventIdConflict?:
            return EventStoreError.eventIdConflict(stream: stream.id)
        case PostgresErrors.streamOwnedByAnotherOwner?:
            return EventStoreError.streamOwnedByAnotherOwner(stream: stream.id)
        case PostgresErrors.appendNotFirstWrite?:
            return EventStoreError.appendNotFirstWrite
        case PostgresErrors.ownerErased?:
            return EventStoreError.ownerErased(stream.ownerId)
        case "22P02"?, "22023"?, "22P05"?, "22021"?:
            return EventStoreError.invalidEventData(PostgresErrors.message(unwrapped) ?? "not valid JSON")
        default:
            return unwrapped
        }
    }

    /// Each event's metadata as JSON; the events of a batch usually share theirs, encoded once.
    static func encodeMetadata(_ events: [NewEvent]) throws -> [String] {
        var last: (metadata: EventMetadata, json: String)?
        return try events.map { event in
            if let last, last.metadata == event.metadata { return last.json }
            let json = try encodeMetadata(event.metadata)
            last = (event.metadata, json)
            return json
        }
    }

    static func encodeMetadata(_ metadata: EventMetadata) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(metadata), as: UTF8.self)
    }

    // MARK: Read

    /// The columns every read selects, from `eventSource` (constants of this file, not input):
    /// the sealed payload with its owner's wrapped key, or the plain one of an event stored
    /// before payloads were sealed (until the server seals it at start).
    static let eventColumns = """
        events.global_position, events.transaction_id::text AS transaction_text, events.event_id, events.owner_id, events.stream_id,
        events.stream_version, events.event_type, events.schema_version, events.data::text, events.metadata::text, events.sealed,
        owner_keys.wrapped, events.recorded_at
        """
    static let eventSource = "events LEFT JOIN owner_keys ON owner_keys.owner_id = events.owner_id"

    /// The events in `rows`, opened. An event whose owner has no key any more (erased) comes
    /// back `shredded`: its place in the log, without its payload. With `holdingKeysOn`, the
    /// owners' key rows are held (FOR KEY SHARE) to the end of that connection's transaction,
    /// so an erasure waits for what is applied from these events, and then purges it; an owner
    /// erased between the read and the hold is shredded here too.
    static func open(
        _ rows: QueryRows, keyring: OwnerKeyring, holdingKeysOn connection: PostgresConnection? = nil, logger: Logger
    ) async throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        for try await row in rows.decode(EventRow.self) {
            var event = RecordedEvent(
                position: try LogPosition(transactionText: row.1, globalPosition: row.0),
                eventId: row.2, ownerId: row.3, streamId: row.4, streamVersion: row.5, type: row.6,
                schemaVersion: row.7, data: row.8 ?? "{}", metadataJSON: row.9 ?? "{}", recordedAt: row.12)
            if let sealed = row.10 {
                if let wrapped = row.11 {
                    (event.data, event.metadataJSON) = try SealedPayload.open(
                        sealed, eventId: event.eventId, key: try keyring.unwrap(wrapped, owner: event.ownerId))
                } else {
                    event.shredded = true
                }
            }
            events.append(event)
        }
        if let connection {
            let owners = Array(Set(events.lazy.filter { !$0.shredded }.map(\.ownerId)))
            guard !owners.isEmpty else { return events }
            let held = try await connection.rows("""
                SELECT owner_id FROM owner_keys WHERE owner_id = ANY(\(owners)::uuid[]) ORDER BY owner_id FOR KEY SHARE
                """, logger: logger)
            var kept = Set<UUID>()
            for try await owner in held.decode(UUID.self) { kept.insert(owner) }
            if kept.count < owners.count {
                for index in events.indices where !kept.contains(events[index].ownerId) { events[index].shred() }
            }
        }
        return events
    }

    typealias EventRow = (Int64, String, UUID, UUID, String, Int64, String, Int16, String?, String?, ByteBuffer?, ByteBuffer?, Date)

    static func readEvents(ids: [UUID], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws -> [RecordedEvent] {
        let rows = try await connection.rows("""
            SELECT \(unescaped: Self.eventColumns)
            FROM \(unescaped: Self.eventSource) WHERE events.event_id = ANY(\(ids)::uuid[]) ORDER BY events.global_position
            """, logger: logger)
        return try await open(rows, keyring: keyring, logger: logger)
    }

    /// The events at these global positions, in the log's gap-safe order, their owners' keys held.
    public static func readEvents(
        positions: [Int64], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger
    ) async throws -> [RecordedEvent] {
        let rows = try await connection.rows("""
            SELECT \(unescaped: Self.eventColumns)
            FROM \(unescaped: Self.eventSource) WHERE events.global_position = ANY(\(positions)::bigint[])
            ORDER BY events.transaction_id, events.global_position
            """, logger: logger)
        return try await open(rows, keyring: keyring, holdingKeysOn: connection, logger: logger)
    }

    /// The events of `type` that these owners' transactions stored (a request's events, read
    /// whole), their owners' keys held.
    public static func readEvents(
        transactions: [(owner: UUID, transaction: String)], type: String, keyring: OwnerKeyring,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [RecordedEvent] {
        let rows = try await connection.rows("""
            SELECT \(unescaped: Self.eventColumns)
            FROM unnest(\(transactions.map(\.owner))::uuid[], \(transactions.map(\.transaction))::text[]) AS t(owner, tx)
            JOIN \(unescaped: Self.eventSource) ON events.transaction_id = t.tx::xid8 AND events.owner_id = t.owner
            WHERE events.event_type = \(type)
            ORDER BY events.transaction_id, events.global_position
            """, logger: logger)
        return try await open(rows, keyring: keyring, holdingKeysOn: connection, logger: logger)
    }

    /// Events of one stream from `version` on (1-based), in stream order. A stream whose owner
    /// was erased cannot be read: `ownerErased`.
    public func readStream(_ streamId: String, from version: Int64 = 1, limit: Int = 10_000) async throws -> [RecordedEvent] {
        let rows = try await client.rows("""
            SELECT \(unescaped: Self.eventColumns)
            FROM \(unescaped: Self.eventSource) WHERE events.stream_id = \(streamId) AND events.stream_version >= \(version)
            ORDER BY events.stream_version LIMIT \(limit)
            """, logger: logger)
        let events = try await Self.open(rows, keyring: keyring, logger: logger)
        if let shredded = events.first(where: \.shredded) { throw EventStoreError.ownerErased(shredded.ownerId) }
        return events
    }

    /// The stream's current version, 0 when it does not exist.
    public func streamVersion(_ streamId: String) async throws -> Int64 {
        let rows = try await client.rows("SELECT version FROM streams WHERE stream_id = \(streamId)", logger: logger)
        for try await version in rows.decode(Int64.self) { return version }
        return 0
    }

    /// The next batch of the whole log after `position`, gap-safely: only transactions below the
    /// snapshot's xmin are read, and every one of those has finished, so nothing can later appear
    /// behind the position a reader keeps. `types` narrows the read to some event types. The
    /// owners' keys are held to the end of the connection's transaction (`open`).
    public static func readAll(
        after position: LogPosition, limit: Int, types: [String]? = nil, keyring: OwnerKeyring,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [RecordedEvent] {
        try await readLog(after: position, limit: limit, types: types, frontier: true, keyring: keyring, on: connection, logger: logger)
    }

    /// Like `readAll`, but without the snapshot frontier. Only correct while the caller holds the
    /// append gate exclusively: then no append is in flight and every stored event is final.
    public static func readAllUnderExclusiveGate(
        after position: LogPosition, limit: Int, types: [String]? = nil, keyring: OwnerKeyring,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [RecordedEvent] {
        try await readLog(after: position, limit: limit, types: types, frontier: false, keyring: keyring, on: connection, logger: logger)
    }

    static func readLog(
        after position: LogPosition, limit: Int, types: [String]?, frontier: Bool, keyring: OwnerKeyring,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [RecordedEvent] {
        let tx = String(position.transactionId)
        let rows = try await connection.rows("""
            SELECT \(unescaped: Self.eventColumns)
            FROM \(unescaped: Self.eventSource)
            WHERE (NOT \(frontier) OR events.transaction_id < pg_snapshot_xmin(pg_current_snapshot()))
              AND (events.transaction_id, events.global_position) > (\(tx)::xid8, \(position.globalPosition))
              AND (\(types)::text[] IS NULL OR events.event_type = ANY(\(types)::text[]))
            ORDER BY events.transaction_id, events.global_position LIMIT \(limit)
            """, logger: logger)
        return try await open(rows, keyring: keyring, holdingKeysOn: connection, logger: logger)
    }

    /// The snapshot frontier now: every transaction with a lower id has ended, so what the log
    /// holds below it is final. Reads given this bound, and the head below it, agree with each other.
    public static func frontier(on connection: PostgresConnection, logger: Logger) async throws -> UInt64 {
        let rows = try await connection.rows("SELECT pg_snapshot_xmin(pg_current_snapshot())::text", logger: logger)
        var frontier = LogPosition.start
        for try await text in rows.decode(String.self) { frontier = try LogPosition(transactionText: text, globalPosition: 0) }
        return frontier.transactionId
    }

    /// Like `readAll`, up to a frontier read before (`frontier(on:)`) rather than the current one.
    public static func readAll(
        after position: LogPosition, below frontier: UInt64, limit: Int, types: [String]? = nil, keyring: OwnerKeyring,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [RecordedEvent] {
        let tx = String(position.transactionId), bound = String(frontier)
        let rows = try await connection.rows("""
            SELECT \(unescaped: Self.eventColumns)
            FROM \(unescaped: Self.eventSource)
            WHERE events.transaction_id < \(bound)::xid8
              AND (events.transaction_id, events.global_position) > (\(tx)::xid8, \(position.globalPosition))
              AND (\(types)::text[] IS NULL OR events.event_type = ANY(\(types)::text[]))
            ORDER BY events.transaction_id, events.global_position LIMIT \(limit)
            """, logger: logger)
        return try await open(rows, keyring: keyring, holdingKeysOn: connection, logger: logger)
    }

    /// The position of the last event below `frontier` (nil for an empty log): one step back
    /// along the log's index.
    public static func head(below frontier: UInt64, on connection: PostgresConnection, logger: Logger) async throws -> LogPosition? {
        let rows = try await connection.rows("""
            SELECT transaction_id::text AS transaction_text, global_position FROM events WHERE transaction_id < \(String(frontier))::xid8
            ORDER BY events.transaction_id DESC, events.global_position DESC LIMIT 1
            """, logger: logger)
        for try await (tx, position) in rows.decode((String, Int64).self) {
            return try LogPosition(transactionText: tx, globalPosition: position)
        }
        return nil
    }

    public func readAll(after position: LogPosition, limit: Int, types: [String]? = nil) async throws -> [RecordedEvent] {
        let keyring = self.keyring
        return try await client.withConnection { connection in
            try await Self.readAll(after: position, limit: limit, types: types, keyring: keyring, on: connection, logger: logger)
        }
    }
}
