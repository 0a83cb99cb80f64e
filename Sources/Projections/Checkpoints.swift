import EventStore
import Logging
import PostgresNIO

/// The `projection_checkpoints` table: where each async projector has read up to.
enum Checkpoints {
    static func read(_ projector: String, on connection: PostgresConnection, logger: Logger) async throws -> LogPosition {
        let rows = try await connection.rows("""
            SELECT transaction_id::text, global_position FROM projection_checkpoints WHERE projector = \(projector)
            """, logger: logger)
        for try await (tx, position) in rows.decode((String, Int64).self) {
            return try LogPosition(transactionText: tx, globalPosition: position)
        }
        return .start
    }

    static func write(_ projector: String, _ position: LogPosition, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("""
            INSERT INTO projection_checkpoints (projector, transaction_id, global_position, updated_at)
            VALUES (\(projector), \(String(position.transactionId))::xid8, \(position.globalPosition), clock_timestamp())
            ON CONFLICT (projector) DO UPDATE SET
              transaction_id = excluded.transaction_id,
              global_position = excluded.global_position,
              updated_at = excluded.updated_at
            """, logger: logger)
    }
}
