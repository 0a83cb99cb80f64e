import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Counts failed attempts per key in a sliding window; past the limit, callers get 429.
public struct Throttle: Sendable {
    public struct Rule: Sendable {
        public var prefix: String
        public var limit: Int
        public init(prefix: String, limit: Int) {
            self.prefix = prefix
            self.limit = limit
        }
    }

    public static let window: TimeInterval = 15 * 60
    let client: PostgresClient
    let clock: any WallClock
    let logger: Logger

    public init(client: PostgresClient, clock: any WallClock, logger: Logger) {
        self.client = client
        self.clock = clock
        self.logger = logger
    }

    /// Throws `throttled` when any key has reached its limit within the window.
    public func check(_ keys: [(key: String, limit: Int)]) async throws {
        let now = clock.now()
        let since = now.addingTimeInterval(-Self.window)
        for (key, limit) in keys {
            let rows = try await client.query("""
                SELECT count(*)::int, min(attempted_at) FROM (
                  SELECT attempted_at FROM auth_failures WHERE key = \(key) AND attempted_at > \(since)
                  ORDER BY attempted_at DESC LIMIT \(limit)) recent
                """, logger: logger)
            for try await (count, oldest) in rows.decode((Int, Date?).self) where count >= limit {
                let retry = max(1, Int(((oldest ?? now).addingTimeInterval(Self.window)).timeIntervalSince(now).rounded(.up)))
                throw AuthError.throttled(retryAfterSeconds: retry)
            }
        }
    }

    public func recordFailure(_ keys: [String]) async throws {
        let now = clock.now()
        try await client.run("""
            INSERT INTO auth_failures (key, attempted_at) SELECT unnest(\(keys)::text[]), \(now)
            """, logger: logger)
        // Old rows are no longer evidence of anything.
        try await client.run("DELETE FROM auth_failures WHERE attempted_at < \(now.addingTimeInterval(-2 * Self.window))", logger: logger)
    }

    public func clear(_ key: String) async throws {
        try await client.run("DELETE FROM auth_failures WHERE key = \(key)", logger: logger)
    }
}
