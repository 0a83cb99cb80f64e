import Crypto
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// What every accounts service shares: the user's stream (through the command path), the
/// accounts read model, and the security state kept beside the log (credentials, sessions,
/// refresh tokens, device keys, pairing codes, throttles). Secrets are stored only as hashes.
public struct AccountsStore: Sendable {
    let commands: CommandPath
    let users: AccountsReadModel
    let client: PostgresClient
    let tokens: AccessTokens
    let hasher: PasswordHasher
    let throttle: ThrottleStore
    let clock: any WallClock
    let logger: Logger

    public init(store: PostgresEventStore, tokens: AccessTokens, hasher: PasswordHasher, clock: any WallClock, logger: Logger) {
        commands = CommandPath(store: store)
        users = AccountsReadModel(client: store.client, logger: logger)
        client = store.client
        self.tokens = tokens
        self.hasher = hasher
        throttle = ThrottleStore(client: store.client, clock: clock, logger: logger)
        self.clock = clock
        self.logger = logger
    }

    /// Decides `command` on the user's account and appends what it decided; `also` stores
    /// security state in the same transaction (a password hash, a key's hash, a revocation).
    @discardableResult
    func execute(_ context: CommandContext, _ command: AccountCommand, also: PostgresEventStore.AlsoInTransaction? = nil) async throws -> CommandPath.Outcome {
        let userId = context.userId
        let stream = StreamName(id: AccountEvent.streamId(userId), ownerId: userId, type: AccountEvent.streamType)
        // The account's rules need no user's day; the decision still gets a real one (UTC's).
        let now = clock.now()
        let time = DecisionTime(instant: now, today: LocalDate.utc(of: now))
        return try await commands.run(AccountDecider.self, stream: stream, command: command, context: context, time: time, also: also) {
            guard let (account, version) = try await users.decisionState(userId) else { return .init(state: nil, streamVersion: 0) }
            return .init(state: account, streamVersion: version)
        }
    }

    public func user(_ userId: UUID) async throws -> UserRecord {
        guard let user = try await users.user(userId) else { throw ResourceError.notFound }
        return user
    }

    func startSession(userId: UUID) async throws -> TokenPair {
        let sessionId = UUID()
        let now = clock.now()
        let refresh = SecretToken.make(prefix: "llr_")
        try await client.transaction(logger: logger) { connection in
            try await connection.run("INSERT INTO sessions (session_id, user_id, created_at) VALUES (\(sessionId), \(userId), \(now))", logger: logger)
            try await connection.run("""
                INSERT INTO refresh_tokens (token_hash, session_id, user_id, issued_at, expires_at)
                VALUES (\(SecretToken.hash(refresh)), \(sessionId), \(userId), \(now), \(now.addingTimeInterval(SessionService.refreshLifetime)))
                """, logger: logger)
        }
        return TokenPair(accessToken: try await tokens.issue(userId: userId, sessionId: sessionId), refreshToken: refresh,
                         expiresIn: Int(tokens.lifetime))
    }

    func revokeSessions(userId: UUID, only sessionId: UUID?, reason: String, on connection: PostgresConnection? = nil) async throws {
        let now = clock.now()
        // The NOTIFY ends the event streams of the sessions it ended, on every instance (`ChangeFeed`).
        let query: PostgresQuery = """
            WITH ended AS (
                UPDATE sessions SET revoked_at = \(now), revoked_reason = \(reason)
                WHERE user_id = \(userId) AND revoked_at IS NULL AND (\(sessionId)::uuid IS NULL OR session_id = \(sessionId))
                RETURNING user_id)
            SELECT pg_notify('lifelog_sessions', user_id::text) FROM (SELECT DISTINCT user_id FROM ended) AS users
            """
        if let connection { try await connection.run(query, logger: logger) } else { try await client.run(query, logger: logger) }
    }

    /// Stores a new password (as an event plus the hash) and revokes every session.
    func setPassword(_ userId: UUID, _ password: String, reason: String) async throws {
        let hash = try await hasher.hash(password)
        let now = clock.now()
        try await execute(CommandContext(userId: userId), .recordPasswordChange(reason: reason)) { connection, _ in
            try await connection.run("UPDATE credentials SET password_hash = \(hash), updated_at = \(now) WHERE user_id = \(userId)", logger: logger)
            try await revokeSessions(userId: userId, only: nil, reason: "password changed", on: connection)
        }
    }
}

/// Accounts and authentication, by job, over one store: what the API and the CLI share.
public struct AccountService: Sendable {
    public let sessions: SessionService
    public let devices: DeviceService
    public let profiles: ProfileService
    public let operators: OperatorCommands
    public var requestFingerprintKeys: [SymmetricKey] { sessions.store.tokens.requestFingerprintKeys }
    public var secretSealer: SecretSealer { sessions.store.tokens.secretSealer }

    public init(
        store: PostgresEventStore, tokens: AccessTokens, hasher: PasswordHasher, clock: any WallClock, logger: Logger,
        registrationsPerAddress: Int = 10
    ) async throws {
        let shared = AccountsStore(store: store, tokens: tokens, hasher: hasher, clock: clock, logger: logger)
        sessions = try await SessionService(store: shared, registrationsPerAddress: registrationsPerAddress)
        devices = DeviceService(store: shared)
        profiles = ProfileService(store: shared)
        operators = OperatorCommands(store: shared)
    }
}
