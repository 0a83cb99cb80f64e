import Foundation
import Logging
import PostgresNIO

/// The table of idempotent answers (`IdempotencyMiddleware` keeps them): what time takes away.
public struct IdempotencyKeyStore: Sendable {
    /// An answer is replayed this long; a retry after it runs its command again, which finds the
    /// events its first attempt stored and stores nothing twice.
    public static let keptFor: TimeInterval = 48 * 3600
    /// An answer with secrets (a device key, a pairing code) is kept sealed this long; a replay
    /// after it says what was created, without them.
    public static let sealedFor: TimeInterval = 24 * 3600

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Removes the answers past `keptFor` and the sealed copies past `sealedFor`; how many
    /// answers went.
    @discardableResult
    public func expire(now: Date) async throws -> Int {
        var removed = 0
        for try await count in try await client.query("""
            WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < \(now.addingTimeInterval(-Self.keptFor)) RETURNING 1)
            SELECT count(*)::int FROM gone
            """, logger: logger).decode(Int.self) { removed = count }
        try await client.query("""
            UPDATE idempotency_keys SET sealed_body = NULL WHERE sealed_body IS NOT NULL AND created_at < \(now.addingTimeInterval(-Self.sealedFor))
            """, logger: logger).collect()
        return removed
    }
}
