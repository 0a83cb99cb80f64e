import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Failed attempts per key in a sliding window (`auth_failures`): the accounts' services ask it
/// before checking a secret, and refuse with 429 past the limit (`ThrottleClaim`).
public struct ThrottleStore: Sendable {
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

    /// Counts an attempt against every key before the secret is checked, or refuses it when a
    /// key is at its limit (nothing counted then). The check and the insert run under a lock per
    /// key, so parallel guesses cannot all slip past the count. A counted attempt's id is
    /// `forgive`n when the attempt succeeds.
    public func claim(_ keys: [(key: String, limit: Int)]) async throws -> ThrottleClaim {
        let now = clock.now()
        let since = now.addingTimeInterval(-Self.window)
        let attempt = UUID()
        let refused: Int? = try await client.transaction(logger: logger) { connection in
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
                    return max(1, Int(((oldest ?? now).addingTimeInterval(Self.window)).timeIntervalSince(now).rounded(.up)))
                }
            }
            try await connection.run("""
                INSERT INTO auth_failures (key, attempted_at, attempt_id) SELECT unnest(\(keys.map(\.key))::text[]), \(now), \(attempt)
                """, logger: logger)
            return nil
        }
        if let refused { return .refused(retryAfterSeconds: refused) }
        // Old rows are no longer evidence of anything.
        try? await client.run("DELETE FROM auth_failures WHERE attempted_at < \(now.addingTimeInterval(-2 * Self.window))", logger: logger)
        return .counted(attempt)
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

/// What `ThrottleStore.claim` answers: the attempt counted (its id), or refused until a
/// number of seconds have passed.
public enum ThrottleClaim: Sendable, Equatable {
    case counted(UUID)
    case refused(retryAfterSeconds: Int)
}
