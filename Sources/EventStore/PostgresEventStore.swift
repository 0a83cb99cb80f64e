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
    /// Where appends take a connection first (nil: the pool's only).
    public let appendConnections: AppendConnections?
    let logger: Logger

    /// `commits` defaults to the client's own signal, which a `ReaderWaker` on the same client follows.
    public init(client: PostgresClient, keyring: OwnerKeyring, hook: (any AppendHook)? = nil, logger: Logger, commits: CommitSignal? = nil,
                appendConnections: AppendConnections? = nil) {
        self.client = client
        self.keyring = keyring
        self.hook = hook
        self.commits = commits ?? CommitSignal.of(client)
        self.appendConnections = appendConnections
        self.logger = logger
    }

    // MARK: Append

    /// Appends `events` to `stream` if it is at `expected`, in one transaction with the inline
    /// projectors. Re-sending a batch whose event ids are already stored returns the stored events.
    /// Work that commits or rolls back with an append, after the inline projectors: security
    /// state that must change exactly when an event is stored (a password hash, a revocation).
    /// It may run on a NIO event loop (a small append's work runs there, `onItsLoop`): statements
    /// on the connection it is given, nothing that computes for long or blocks its thread.
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
            try SealedPayload.seal(data: event.data, metadata: metadata, binding: SealedPayload.Binding(
                eventId: event.eventId, ownerId: stream.ownerId, streamId: stream.id, type: event.type, schemaVersion: event.schemaVersion), key: key)
        }
        let arguments = Self.appendArguments(stream: stream, expected: expected, events: events, sealed: sealed)
        let query = arguments.call(fresh: fresh, fusion: hook?.fusion)
        let keyring = self.keyring
        let small = events.count <= Self.preparedAnswerLimit && sealed.reduce(0, { $0 + $1.readableBytes }) <= Self.onLoopBytes
        do {
            if also != nil || hook?.hasWork(forTypes: arguments.types) == true {
                let hook = self.hook
                return try await withAppendConnection(small: small) { connection in try await connection.transaction(logger: logger) { connection in
                    let result = try await Self.runAppend(
                        query, stream: stream, events: events, metadata: metadata, keyring: keyring, on: connection, logger: logger)
                    if !result.replayed {
                        try await hook?.didAppend(result.events, keyring: keyring, on: connection, logger: logger)
                        try await also?(connection, result)
                    }
                    return result
                } }
            }
            // Without inline work (or with only the fused read model's) the single statement is
            // its own transaction: one round trip.
            return try await withAppendConnection(small: small) { connection in
                try await Self.runAppend(query, stream: stream, events: events, metadata: metadata, keyring: keyring, on: connection, logger: logger)
            }
        } catch {
            let translated = Self.translate(error, stream: stream, expected: expected)
            if case EventStoreError.ownerErased = translated { keyring.forget(stream.ownerId) }
            throw translated
        }
    }

    /// One of `appendConnections` when one is free, else a connection of the pool; a `small`
    /// batch's work runs on the connection's event loop (`onItsLoop`).
    private func withAppendConnection<Result: Sendable>(
        small: Bool, _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let work: (PostgresConnection) async throws -> sending Result = { connection in
            small ? try await connection.onItsLoop { try await body(connection) } : try await body(connection)
        }
        if let appendConnections { return try await appendConnections.withConnection(orFrom: client, work) }
        return try await client.withConnection(work)
    }

    static func appendArguments(stream: StreamName, expected: ExpectedVersion, events: [NewEvent], sealed: [ByteBuffer]) -> AppendArguments {
        AppendArguments(streamId: stream.id, ownerId: stream.ownerId, streamType: stream.type, expected: expected.sqlValue,
                        eventIds: events.map(\.eventId), types: events.map(\.type), schemaVersions: events.map(\.schemaVersion),
                        sealed: sealed)
    }

    /// The most events an append reads its answer for through PostgresNIO's row sequence (a
    /// prepared statement): about 60 bytes each, 64 stay well inside one 8 KB flush of
    /// PostgreSQL's, which a connection cut off mid-answer cannot split (`QueryRunning.swift`).
    static let preparedAnswerLimit = 64

    /// The most sealed bytes an append whose work runs on its connection's event loop may
    /// carry: an HTTP write's few events, not a health batch, whose inline projector parses
    /// thousands of samples while no other connection on that loop would be read.
    static let onLoopBytes = 16 * 1_024

    static func runAppend(
        _ statement: some AppendCall, stream: StreamName, events: [NewEvent], metadata: [String], keyring: OwnerKeyring,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> AppendResult {
        let rows = events.count <= preparedAnswerLimit
            ? try await connection.prepared(statement, logger: logger)
            : try await connection.unprepared(statement, logger: logger)
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
}
