import Foundation
import Logging
import PostgresNIO

/// One event of the log without its payload: where it is, whose it is, its stream and type.
/// What a live feed needs to tell a client what to read again.
public struct LogHeader: Sendable, Equatable {
    public var position: LogPosition
    public var ownerId: UUID
    public var streamId: String
    public var type: String
    public init(position: LogPosition, ownerId: UUID, streamId: String, type: String) {
        self.position = position
        self.ownerId = ownerId
        self.streamId = streamId
        self.type = type
    }
}

extension PostgresEventStore {
    /// Headers of the events after `position` below the snapshot frontier (gap-safe, the order
    /// every async projector reads), of one owner or all.
    public static func headers(
        _ client: PostgresClient, after position: LogPosition, owner: UUID?, limit: Int, logger: Logger
    ) async throws -> [LogHeader] {
        let tx = String(position.transactionId)
        // Two statements, so each has its plan: the whole log along (transaction_id,
        // global_position), one owner's along (owner_id, global_position). The order names the
        // table's columns: a bare `transaction_id` would be the text output column, and a text
        // sort puts 10002 before 9993 (the live stream lost the events that sort hid).
        let rows = if let owner {
            try await client.rows("""
                SELECT transaction_id::text AS transaction_text, global_position, owner_id, stream_id, event_type FROM events
                WHERE owner_id = \(owner) AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
                  AND (transaction_id, global_position) > (\(tx)::xid8, \(position.globalPosition))
                ORDER BY events.transaction_id, events.global_position LIMIT \(limit)
                """, logger: logger)
        } else {
            try await client.rows("""
                SELECT transaction_id::text AS transaction_text, global_position, owner_id, stream_id, event_type FROM events
                WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
                  AND (transaction_id, global_position) > (\(tx)::xid8, \(position.globalPosition))
                ORDER BY events.transaction_id, events.global_position LIMIT \(limit)
                """, logger: logger)
        }
        var headers: [LogHeader] = []
        for try await (tx, global, owner, stream, type) in rows.decode((String, Int64, UUID, String, String).self) {
            headers.append(LogHeader(position: try LogPosition(transactionText: tx, globalPosition: global), ownerId: owner, streamId: stream, type: type))
        }
        return headers
    }

    /// The last global position the log has given out (0 for an empty log).
    public static func lastGlobalPosition(_ client: PostgresClient, logger: Logger) async throws -> Int64 {
        for try await last in try await client.rows("SELECT COALESCE(max(global_position), 0) FROM events", logger: logger).decode(Int64.self) {
            return last
        }
        return 0
    }

    /// Whether the database answers a trivial statement (readiness, the database wait).
    public static func ping(_ client: PostgresClient, logger: Logger) async throws {
        try await client.run("SELECT 1", logger: logger)
    }
}
