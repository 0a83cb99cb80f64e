import EventStore
import Foundation
import Logging
import PostgresNIO

/// The table of idempotent answers (`IdempotencyMiddleware` keeps them): a claim per user and
/// key, the answer it got, and what time takes away.
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
        for try await count in try await client.rows("""
            WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < \(now.addingTimeInterval(-Self.keptFor)) RETURNING 1)
            SELECT count(*)::int FROM gone
            """, logger: logger).decode(Int.self) { removed = count }
        try await client.run("""
            UPDATE idempotency_keys SET sealed_body = NULL WHERE sealed_body IS NOT NULL AND created_at < \(now.addingTimeInterval(-Self.sealedFor))
            """, logger: logger)
        return removed
    }

    /// An answer as kept: the status and headers a replay needs, the body without secrets, and
    /// the whole body sealed when it had secrets.
    public struct Answer: Sendable {
        public var status: Int16
        public var contentType: String?
        public var body: ByteBuffer
        public var sealedBody: ByteBuffer?
        public var etag: String?
        public var location: String?
        public init(status: Int16, contentType: String?, body: ByteBuffer, sealedBody: ByteBuffer?, etag: String?, location: String?) {
            self.status = status
            self.contentType = contentType
            self.body = body
            self.sealedBody = sealedBody
            self.etag = etag
            self.location = location
        }
    }

    /// What is stored under a key: the request it was claimed for, since when, and its answer once there is one.
    public struct Entry: Sendable {
        public var requestHash: ByteBuffer
        public var claimedAt: Date
        public var status: Int16?
        public var contentType: String?
        public var body: ByteBuffer?
        public var sealedBody: ByteBuffer?
        public var etag: String?
        public var location: String?
    }

    /// Claims the key for this request; false when someone holds it already.
    public func claim(userId: UUID, key: String, requestHash: ByteBuffer, at now: Date) async throws -> Bool {
        for try await _ in try await client.rows("""
            INSERT INTO idempotency_keys (user_id, key, request_hash, created_at) VALUES (\(userId), \(key), \(requestHash), \(now))
            ON CONFLICT (user_id, key) DO NOTHING
            RETURNING 1
            """, logger: logger) { return true }
        return false
    }

    /// Takes over a claim still unanswered since `since` (its server gave it up).
    public func takeOver(userId: UUID, key: String, claimedAt since: Date, at now: Date) async throws {
        try await client.run("""
            UPDATE idempotency_keys SET created_at = \(now)
            WHERE user_id = \(userId) AND key = \(key) AND status IS NULL AND created_at = \(since)
            """, logger: logger)
    }

    /// Keeps the answer of an unanswered claim made for one of `fingerprints`.
    public func keep(_ answer: Answer, userId: UUID, key: String, fingerprints: [ByteBuffer]) async throws {
        try await client.run("""
            UPDATE idempotency_keys SET status = \(answer.status), content_type = \(answer.contentType),
              body = \(answer.body), sealed_body = \(answer.sealedBody), etag = \(answer.etag), location = \(answer.location)
            WHERE user_id = \(userId) AND key = \(key) AND status IS NULL AND request_hash = ANY(\(fingerprints))
            """, logger: logger)
    }

    /// Lets an unanswered claim go (its request failed), so a retry may take it.
    public func release(userId: UUID, key: String) async throws {
        try await client.run("DELETE FROM idempotency_keys WHERE user_id = \(userId) AND key = \(key) AND status IS NULL", logger: logger)
    }

    public func entry(userId: UUID, key: String) async throws -> Entry? {
        let rows = try await client.rows("""
            SELECT request_hash, status, content_type, body, etag, location, created_at, sealed_body FROM idempotency_keys
            WHERE user_id = \(userId) AND key = \(key)
            """, logger: logger)
        for try await (hash, status, contentType, body, etag, location, created, sealed) in rows.decode(
            (ByteBuffer, Int16?, String?, ByteBuffer?, String?, String?, Date, ByteBuffer?).self)
        {
            return Entry(requestHash: hash, claimedAt: created, status: status, contentType: contentType, body: body,
                         sealedBody: sealed, etag: etag, location: location)
        }
        return nil
    }
}
