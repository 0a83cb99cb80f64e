import Foundation
import Logging
import PostgresNIO

/// What a reader that stops at the snapshot frontier does after a wake-up. Any transaction in the
/// cluster (a projector's batch, a session's update, another server's) can hold the frontier back
/// for a moment and end without a notification of its own, so a reader that found nothing new
/// looks again, briefly and with backoff, while the log holds events past its position; otherwise
/// those events would wait for the next poll tick (a second: the live stream's outliers).
public enum FrontierFollower {
    /// Runs `catchUp` (which answers how many events it read) until nothing waits behind the
    /// frontier. Progress means the frontier moves (steady writes): look again soon; only a
    /// frontier that stays put (a long transaction elsewhere) backs off, to 100 ms. With `limit`,
    /// a frontier that has not moved for that long is left to the reader's next poll (a
    /// forgotten transaction would otherwise keep it looking ten times a second).
    public static func catchUp(
        _ catchUp: () async throws -> Int, whileUnread unread: () async throws -> Bool, limit: Duration? = nil
    ) async throws {
        let clock = ContinuousClock()
        var moved = clock.now
        if try await catchUp() > 0 { moved = clock.now }
        var delay = 5
        while !Task.isCancelled, limit.map({ clock.now - moved < $0 }) ?? true, try await unread() {
            try await Task.sleep(for: .milliseconds(delay))
            if try await catchUp() > 0 {
                (delay, moved) = (5, clock.now)
            } else {
                delay = min(delay * 2, 100)
            }
        }
    }
}

extension PostgresEventStore {
    /// True when the log holds events after `position` (of `types`, or of any), visible below the
    /// frontier or not yet.
    public static func hasEvents(
        after position: LogPosition, types: [String]? = nil, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let rows = try await connection.rows("""
            SELECT EXISTS (SELECT 1 FROM events
              WHERE (transaction_id, global_position) > (\(String(position.transactionId))::xid8, \(position.globalPosition))
                AND (\(types)::text[] IS NULL OR event_type = ANY(\(types)::text[])))
            """, logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }
}
