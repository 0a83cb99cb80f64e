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

    /// Counts an attempt against every key before the secret is checked, refusing with
    /// `throttled` when a key is at its limit. The check and the insert run under a lock per key,
    /// so parallel guesses cannot all slip past the count. Returns the attempt's id, to be
    /// `forgive`n when the attempt succeeds.
    public func claim(_ keys: [(key: String, limit: Int)]) async throws -> UUID {
        let now = clock.now()
        let since = now.addingTimeInterval(-Self.window)
        let attempt = UUID()
        try await client.transaction(logger: logger) { connection in
            for (key, _) in keys.sorted(by: { $0.key < $1.key }) {
                try await connection.run("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 7))", logger: logger)
            }
            for (key, limit) in keys {
                let rows = try await connection.rows("""
                    SELECT count(*)::int, min(attempted_at) FROM (
                      SELECT attempted_at FROM auth_failures WHERE key = \(key) AND attempted_at > \(since)
                      ORDER BY attempted_at DESC LIMIT \(limit)) recent
                    """, logger: logger)
                for try await (count, oldest) in rows.decode((Int, Date?).self) where count >= limit {
                    let retry = max(1, Int(((oldest ?? now).addingTimeInterval(Self.window)).timeIntervalSince(now).rounded(.up)))
                    throw AuthError.throttled(retryAfterSeconds: retry)
                }
            }
            try await connection.run("""
                INSERT INTO auth_failures (key, attempted_at, attempt_id) SELECT unnest(\(keys.map(\.key))::text[]), \(now), \(attempt)
                """, logger: logger)
        }
        // Old rows are no longer evidence of anything.
        try? await client.run("DELETE FROM auth_failures WHERE attempted_at < \(now.addingTimeInterval(-2 * Self.window))", logger: logger)
        return attempt
    }

    /// Failures counted for `key` within the window.
    public func failures(_ key: String) async throws -> Int {
        let since = clock.now().addingTimeInterval(-Self.window)
        let rows = try await client.rows("SELECT count(*)::int FROM auth_failures WHERE key = \(key) AND attempted_at > \(since)", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Counts a failure for `key` (one that slows down rather than refuses).
    public func record(_ key: String) async throws {
        try await client.run("INSERT INTO auth_failures (key, attempted_at, attempt_id) VALUES (\(key), \(clock.now()), \(UUID()))", logger: logger)
    }

    /// A successful attempt does not count.
    public func forgive(_ attempt: UUID) async throws {
        try await client.run("DELETE FROM auth_failures WHERE attempt_id = \(attempt)", logger: logger)
    }

    public func clear(_ key: String) async throws {
        try await client.run("DELETE FROM auth_failures WHERE key = \(key)", logger: logger)
    }
}
