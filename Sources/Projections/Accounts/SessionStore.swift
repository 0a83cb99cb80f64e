import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// The accounts' security state beside the log: password hashes (`credentials`), sessions and
/// their refresh tokens. Secrets arrive hashed; the rules (`RefreshTokenRule`) are `Domain`'s,
/// this store only keeps what they decide. Ended sessions are announced on `channel`, so the
/// event streams they hold end on every instance.
public struct SessionStore: Sendable {
    public static let channel = "lifelog_sessions"
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    // MARK: Credentials

    /// A new account's password hash, in the transaction that registers the account.
    public func insertCredentials(userId: UUID, hash: String, at now: Date, on connection: PostgresConnection) async throws {
        try await connection.run("""
            INSERT INTO credentials (user_id, password_hash, updated_at) VALUES (\(userId), \(hash), \(now))
            """, logger: logger)
    }

    /// A changed password's hash, in the transaction that records the change.
    public func updatePasswordHash(userId: UUID, hash: String, at now: Date, on connection: PostgresConnection) async throws {
        try await connection.run("UPDATE credentials SET password_hash = \(hash), updated_at = \(now) WHERE user_id = \(userId)", logger: logger)
    }

    /// The account with this (normalized) email and its password hash.
    public func credentials(email: String) async throws -> (userId: UUID, hash: String)? {
        let rows = try await client.rows("""
            SELECT u.user_id, c.password_hash FROM rm_users u JOIN credentials c USING (user_id) WHERE u.email = \(email)
            """, logger: logger)
        for try await (userId, hash) in rows.decode((UUID, String).self) { return (userId, hash) }
        return nil
    }

    public func passwordHash(userId: UUID) async throws -> String? {
        for try await hash in try await client.rows("SELECT password_hash FROM credentials WHERE user_id = \(userId)", logger: logger).decode(String.self) {
            return hash
        }
        return nil
    }

    // MARK: Sessions and refresh tokens

    /// A new session and its first refresh token, together.
    public func open(sessionId: UUID, userId: UUID, refreshHash: ByteBuffer, at now: Date, expiresAt: Date) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.run("INSERT INTO sessions (session_id, user_id, created_at) VALUES (\(sessionId), \(userId), \(now))", logger: logger)
            try await insertRefreshToken(refreshHash, sessionId: sessionId, userId: userId, at: now, expiresAt: expiresAt, on: connection)
        }
    }

    /// Reads the token under a lock, asks `decide` what it leads to, and keeps that: a rotation
    /// spends it and stores `nextHash`, a replay ends its session. Answers the decision.
    public func present(
        _ tokenHash: ByteBuffer, nextHash: ByteBuffer, at now: Date,
        decide: @Sendable (RefreshTokenRule.Token?) -> RefreshTokenRule.Decision
    ) async throws -> RefreshTokenRule.Decision {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.rows("""
                SELECT t.session_id, t.user_id, t.spent_at IS NOT NULL, t.expires_at, s.revoked_at IS NOT NULL
                FROM refresh_tokens t JOIN sessions s USING (session_id)
                WHERE t.token_hash = \(tokenHash) FOR UPDATE OF t
                """, logger: logger)
            var token: RefreshTokenRule.Token?
            for try await (sessionId, userId, spent, expires, revoked) in rows.decode((UUID, UUID, Bool, Date, Bool).self) {
                token = .init(sessionId: sessionId, userId: userId, spent: spent, expiresAt: expires, sessionRevoked: revoked)
            }
            let decision = decide(token)
            switch decision {
            case .rotate(let sessionId, let userId, let nextExpiresAt):
                try await connection.run("UPDATE refresh_tokens SET spent_at = \(now) WHERE token_hash = \(tokenHash)", logger: logger)
                try await insertRefreshToken(nextHash, sessionId: sessionId, userId: userId, at: now, expiresAt: nextExpiresAt, on: connection)
            case .revokeFamily(let sessionId, let userId):
                try await connection.run("""
                    UPDATE sessions SET revoked_at = COALESCE(revoked_at, \(now)), revoked_reason = COALESCE(revoked_reason, 'refresh token reused')
                    WHERE session_id = \(sessionId)
                    """, logger: logger)
                try await connection.run("SELECT pg_notify(\(Self.channel), \(userId.uuidString.lowercased()))", logger: logger)
            case .refuse:
                break
            }
            return decision
        }
    }

    /// The session and user a refresh token (spent or not) belongs to.
    public func owner(ofRefreshToken tokenHash: ByteBuffer) async throws -> (sessionId: UUID, userId: UUID)? {
        let rows = try await client.rows("""
            SELECT session_id, user_id FROM refresh_tokens WHERE token_hash = \(tokenHash)
            """, logger: logger)
        for try await (sessionId, userId) in rows.decode((UUID, UUID).self) { return (sessionId, userId) }
        return nil
    }

    /// Whether the user's session is still open.
    public func isOpen(sessionId: UUID, userId: UUID) async throws -> Bool {
        let rows = try await client.rows("""
            SELECT revoked_at IS NULL FROM sessions WHERE session_id = \(sessionId) AND user_id = \(userId)
            """, logger: logger)
        for try await open in rows.decode(Bool.self) { return open }
        return false
    }

    /// The user of a session that is still open; nil for one that ended or never was.
    public func user(ofOpenSession sessionId: UUID) async throws -> UUID? {
        let rows = try await client.rows("""
            SELECT user_id FROM sessions WHERE session_id = \(sessionId) AND revoked_at IS NULL
            """, logger: logger)
        for try await userId in rows.decode(UUID.self) { return userId }
        return nil
    }

    /// Ends the user's open sessions (or only `sessionId`), on `connection` when the ending
    /// belongs to a larger transaction. The NOTIFY ends the event streams of the sessions it
    /// ended, on every instance (`ChangeFeed`).
    public func revoke(userId: UUID, only sessionId: UUID?, reason: String, at now: Date, on connection: PostgresConnection? = nil) async throws {
        let query: PostgresQuery = """
            WITH ended AS (
                UPDATE sessions SET revoked_at = \(now), revoked_reason = \(reason)
                WHERE user_id = \(userId) AND revoked_at IS NULL AND (\(sessionId)::uuid IS NULL OR session_id = \(sessionId))
                RETURNING user_id)
            SELECT pg_notify(\(Self.channel), user_id::text) FROM (SELECT DISTINCT user_id FROM ended) AS users
            """
        if let connection { try await connection.run(query, logger: logger) } else { try await client.run(query, logger: logger) }
    }

    /// Of `sessions`, those that have ended (the change feed closes their streams): revoked, or
    /// gone with an erased account.
    public func ended(among sessions: [UUID]) async throws -> Set<UUID> {
        var ended: Set<UUID> = []
        let rows = try await client.rows("""
            SELECT s FROM unnest(\(sessions)::uuid[]) AS s
            WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE session_id = s AND revoked_at IS NULL)
            """, logger: logger)
        for try await id in rows.decode(UUID.self) { ended.insert(id) }
        return ended
    }

    private func insertRefreshToken(
        _ hash: ByteBuffer, sessionId: UUID, userId: UUID, at now: Date, expiresAt: Date, on connection: PostgresConnection
    ) async throws {
        try await connection.run("""
            INSERT INTO refresh_tokens (token_hash, session_id, user_id, issued_at, expires_at)
            VALUES (\(hash), \(sessionId), \(userId), \(now), \(expiresAt))
            """, logger: logger)
    }
}
