import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Events stored before payloads were sealed (schema/0025) are sealed once, by `lifelog migrate`
/// and by `serve` at start, before anything reads them: the one time the log's rows change.
/// The append-only trigger is off only inside each batch's transaction, which holds the table
/// exclusively meanwhile, so no other session ever sees the log without it.
public enum PlainPayloads {
    /// Seals every plain event, `batchSize` a transaction, with its owner's key (made now for an
    /// owner who has none). Answers how many it sealed. Must run as the table's owner.
    @discardableResult
    public static func sealAll(client: PostgresClient, keyring: OwnerKeyring, logger: Logger, batchSize: Int = 2_000) async throws -> Int {
        var total = 0
        while true {
            let sealed = try await sealBatch(client: client, keyring: keyring, logger: logger, batchSize: batchSize)
            total += sealed
            if sealed < batchSize { return total }
        }
    }

    /// True when the log still holds plain events (an erasure cannot shred those).
    public static func remain(for owner: UUID? = nil, client: PostgresClient, logger: Logger) async throws -> Bool {
        let rows = try await client.query("""
            SELECT EXISTS (SELECT 1 FROM events WHERE sealed IS NULL AND (\(owner)::uuid IS NULL OR owner_id = \(owner)))
            """, logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }

    static func sealBatch(client: PostgresClient, keyring: OwnerKeyring, logger: Logger, batchSize: Int) async throws -> Int {
        guard try await remain(client: client, logger: logger) else { return 0 }
        do {
            return try await client.transaction(logger: logger) { connection in
                try await connection.run("ALTER TABLE events DISABLE TRIGGER events_no_update_delete", logger: logger)
                let rows = try await connection.rows("""
                    SELECT global_position, event_id, owner_id, data::text, metadata::text FROM events
                    WHERE sealed IS NULL ORDER BY global_position LIMIT \(batchSize)
                    """, logger: logger)
                var positions: [Int64] = [], sealed: [ByteBuffer] = []
                for try await (position, eventId, owner, data, metadata) in rows.decode((Int64, UUID, UUID, String, String).self) {
                    let key = try await keyring.sealingKey(for: owner, client: client, logger: logger)
                    positions.append(position)
                    sealed.append(try SealedPayload.seal(data: data, metadata: metadata, eventId: eventId, key: key))
                }
                try await connection.run("""
                    UPDATE events e SET sealed = u.sealed, data = NULL, metadata = NULL
                    FROM unnest(\(positions)::bigint[], \(sealed)::bytea[]) AS u(position, sealed)
                    WHERE e.global_position = u.position
                    """, logger: logger)
                try await connection.run("ALTER TABLE events ENABLE TRIGGER events_no_update_delete", logger: logger)
                logger.info("sealed events stored before payloads were sealed", metadata: ["events": "\(positions.count)"])
                return positions.count
            }
        } catch {
            throw PostgresErrors.unwrap(error)
        }
    }
}
