import Crypto
import Domain
import EventStore
import Foundation
import Logging
import Projections

/// What every accounts service shares: the user's stream (through the command path), the
/// accounts read model, and the security state kept beside the log (credentials, sessions,
/// refresh tokens, device keys, pairing codes, throttles). Secrets are stored only as hashes.
public struct AccountsStore: Sendable {
    let commands: CommandPath
    let users: AccountsReadModel
    let sessions: SessionStore
    let deviceKeys: DeviceKeyStore
    let tokens: AccessTokens
    let hasher: PasswordHasher
    let throttle: ThrottleStore
    /// Erasure: the owners' keys (forgotten here at once) and the rows kept beside the log.
    let keyring: OwnerKeyring
    let erasures: ErasureStore
    let clock: any WallClock
    let logger: Logger

    public init(store: PostgresEventStore, tokens: AccessTokens, hasher: PasswordHasher, clock: any WallClock, logger: Logger) {
        commands = CommandPath(store: store)
        keyring = store.keyring
        erasures = ErasureStore(client: store.client, logger: logger)
        users = AccountsReadModel(client: store.client, logger: logger)
        sessions = SessionStore(client: store.client, logger: logger)
        deviceKeys = DeviceKeyStore(client: store.client, logger: logger)
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
        try await sessions.open(sessionId: sessionId, userId: userId, refreshHash: SecretToken.hash(refresh), at: now,
                                expiresAt: now.addingTimeInterval(RefreshTokenRule.lifetime))
        return TokenPair(accessToken: try await tokens.issue(userId: userId, sessionId: sessionId), refreshToken: refresh,
                         expiresIn: Int(tokens.lifetime))
    }

    /// How throttles name an email: a keyed hash (HMAC under a key derived from the server's),
    /// so the table of failed logins holds no address a dump could read, or test guesses against.
    func throttleName(_ email: String) -> String {
        let message = Data("throttle:\(email)".utf8)
        // There is always a signing key (AccessTokens refuses to start without one).
        let code: [UInt8] = tokens.requestFingerprintKeys.first.map { Array(HMAC<SHA256>.authenticationCode(for: message, using: $0)) }
            ?? Array(SHA256.hash(data: message))
        return code.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    func revokeSessions(userId: UUID, only sessionId: UUID?, reason: String) async throws {
        try await sessions.revoke(userId: userId, only: sessionId, reason: reason, at: clock.now())
    }

    /// Stores a new password (as an event plus the hash) and revokes every session.
    func setPassword(_ userId: UUID, _ password: String, reason: String) async throws {
        let hash = try await hasher.hash(password)
        let now = clock.now()
        let sessions = self.sessions
        try await execute(CommandContext(userId: userId), .recordPasswordChange(reason: reason)) { connection, _ in
            try await sessions.updatePasswordHash(userId: userId, hash: hash, at: now, on: connection)
            try await sessions.revoke(userId: userId, only: nil, reason: "password changed", at: now, on: connection)
        }
    }
}

/// Accounts and authentication, by job, over one store: what the API and the CLI share.
public struct AccountService: Sendable {
    public let sessions: SessionService
    public let devices: DeviceService
    public let profiles: ProfileService
    public let operators: OperatorCommands
    public let erasure: ErasureService
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
        erasure = ErasureService(store: shared)
    }
}
