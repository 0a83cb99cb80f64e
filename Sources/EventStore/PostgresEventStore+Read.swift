import Foundation
import Logging
import NIOCore
import PostgresNIO

// Reading the log: every read opens the sealed payloads with their owners' keys (an erased
// owner's events come back shredded), in stream order or in the gap-safe order of the whole log.
extension PostgresEventStore {
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
                    (event.data, event.metadataJSON) = try SealedPayload.open(sealed, binding: SealedPayload.Binding(
                        eventId: event.eventId, ownerId: event.ownerId, streamId: event.streamId, type: event.type,
                        schemaVersion: event.schemaVersion), key: try keyring.unwrap(wrapped, owner: event.ownerId))
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
