import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Events stored before payloads were sealed (schema/0025) are sealed once, by `lifelog migrate`
/// and by `serve` at start, before anything reads them: the one time the log's rows change.
/// The append-only trigger is off only inside each batch's transaction, which keeps every other
/// writer out of the table meanwhile, so no other session ever sees the log without it.
public enum PlainPayloads {
    /// Seals every plain event, `batchSize` a transaction, with its owner's key (made now for an
    /// owner who has none). Answers how many it sealed. Must run as the table's owner.
    @discardableResult
    public static func sealAll(client: PostgresClient, keyring: OwnerKeyring, logger: Logger, batchSize: Int = 2_000) async throws -> Int {
        guard try await remain(client: client, logger: logger) else { return 0 }
        var (total, position) = (0, Int64(0))
        while true {
            let (sealed, last) = try await sealBatch(after: position, client: client, keyring: keyring, logger: logger, batchSize: batchSize)
            total += sealed
            position = last
            if sealed < batchSize { return total }
        }
    }

    /// True when the log still holds plain events (an erasure cannot shred those).
    public static func remain(for owner: UUID? = nil, client: PostgresClient, logger: Logger) async throws -> Bool {
        let rows = try await client.rows("""
            SELECT EXISTS (SELECT 1 FROM events WHERE sealed IS NULL AND (\(owner)::uuid IS NULL OR owner_id = \(owner)))
            """, logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }

    static func sealBatch(
        after position: Int64, client: PostgresClient, keyring: OwnerKeyring, logger: Logger, batchSize: Int
    ) async throws -> (sealed: Int, last: Int64) {
        do {
            return try await client.transaction(logger: logger) { connection in
                try await connection.run("ALTER TABLE events DISABLE TRIGGER events_no_update_delete", logger: logger)
                // Onward from where the last batch stopped, along the primary key: each batch
                // reads its own rows, not every sealed one before them again.
                let rows = try await connection.rows("""
                    SELECT global_position, event_id, owner_id, stream_id, event_type, schema_version, data::text, metadata::text FROM events
                    WHERE global_position > \(position) AND sealed IS NULL ORDER BY global_position LIMIT \(batchSize)
                    """, logger: logger)
                var positions: [Int64] = [], sealed: [ByteBuffer] = []
                for try await (position, eventId, owner, stream, type, version, data, metadata)
                    in rows.decode((Int64, UUID, UUID, String, String, Int16, String, String).self) {
                    let key = try await keyring.sealingKey(for: owner, client: client, logger: logger)
                    let binding = SealedPayload.Binding(eventId: eventId, ownerId: owner, streamId: stream, type: type, schemaVersion: version)
                    positions.append(position)
                    sealed.append(try SealedPayload.seal(data: data, metadata: metadata, binding: binding, key: key))
                }
                try await connection.run("""
                    UPDATE events e SET sealed = u.sealed, data = NULL, metadata = NULL
                    FROM unnest(\(positions)::bigint[], \(sealed)::bytea[]) AS u(position, sealed)
                    WHERE e.global_position = u.position
                    """, logger: logger)
                try await connection.run("ALTER TABLE events ENABLE TRIGGER events_no_update_delete", logger: logger)
                if !positions.isEmpty {
                    logger.info("sealed events stored before payloads were sealed", metadata: ["events": "\(positions.count)"])
                }
                return (positions.count, positions.last ?? position)
            }
        } catch {
            throw PostgresErrors.unwrap(error)
        }
    }
}
