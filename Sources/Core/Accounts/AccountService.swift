import Crypto
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// Accounts and authentication: the use cases the API and the CLI share.
public struct AccountService: Sendable {
    public static let refreshLifetime: TimeInterval = 30 * 24 * 3600
    public static let pairingLifetime: TimeInterval = 10 * 60
    public static let accountFailureLimit = 5
    public static let addressFailureLimit = 20

    let store: PostgresEventStore
    let client: PostgresClient
    let tokens: AccessTokens
    public var requestFingerprintKeys: [SymmetricKey] { tokens.requestFingerprintKeys }
    let hasher: PasswordHasher
    let throttle: Throttle
    let clock: any WallClock
    let logger: Logger
    /// Compared against when the email is unknown, so both failures take the same time.
    let decoyHash: String

    public init(store: PostgresEventStore, tokens: AccessTokens, hasher: PasswordHasher, clock: any WallClock, logger: Logger) async throws {
        self.store = store
        self.client = store.client
        self.tokens = tokens
        self.hasher = hasher
        self.throttle = Throttle(client: store.client, clock: clock, logger: logger)
        self.clock = clock
        self.logger = logger
        self.decoyHash = try await hasher.hash(SecretToken.password())
    }

    // MARK: Registration and login

    public struct Registration: Sendable {
        public var email: String
        public var password: String
        public var name: String
        public var timezone: String
        public var language: String?
        public var currency: String?
        public init(email: String, password: String, name: String, timezone: String, language: String? = nil, currency: String? = nil) {
            self.email = email
            self.password = password
            self.name = name
            self.timezone = timezone
            self.language = language
            self.currency = currency
        }
    }

    public func register(_ registration: Registration) async throws -> (UserRecord, TokenPair) {
        var errors: [FieldError] = []
        var language: Language?
        if let raw = registration.language {
            language = Language(rawValue: raw)
            if language == nil { errors.append(FieldError("language", "must be one of en, ru, sr")) }
        }
        let profile = UserProfile.new(email: registration.email, name: registration.name, timezone: registration.timezone,
                                      language: language, currency: registration.currency)
        errors += profile.validationErrors() + Passwords.validationErrors(registration.password)
        try ValidationFailure.check(errors)

        let hash = try await hasher.hash(registration.password)
        let userId = UUID()
        let event = AccountEvent.Registered(userId: userId, profile: profile)
        let now = clock.now()
        do {
            try await store.append(
                to: StreamName(id: AccountEvent.streamId(userId), ownerId: userId, type: AccountEvent.streamType),
                expected: .noStream,
                events: [try NewEvent(event, metadata: .user(userId))]
            ) { connection, _ in
                try await connection.run("""
                    INSERT INTO credentials (user_id, password_hash, updated_at) VALUES (\(userId), \(hash), \(now))
                    """, logger: logger)
            }
        } catch let error where PostgresErrors.sqlState(error) == PostgresErrors.uniqueViolation {
            throw AuthError.emailTaken
        }
        let pair = try await startSession(userId: userId)
        return (try await user(userId), pair)
    }

    /// Same answer and about the same time for a wrong email and a wrong password.
    public func login(email: String, password: String, address: String) async throws -> (UserRecord, TokenPair) {
        let email = Email.normalize(email)
        // Text that could never be an account still counts against the address, not a new key.
        let accountKey = Email.isValid(email) ? "account:\(email)" : "account:invalid"
        let keys = [accountKey, "address:\(address.prefix(64))"]
        let attempt = try await throttle.claim([(keys[0], Self.accountFailureLimit), (keys[1], Self.addressFailureLimit)])
        guard Email.isValid(email), !password.contains("\0") else { throw AuthError.invalidCredentials }
        var found: (UUID, String)?
        let rows = try await client.query("""
            SELECT u.user_id, c.password_hash FROM rm_users u JOIN credentials c USING (user_id) WHERE u.email = \(email)
            """, logger: logger)
        for try await row in rows.decode((UUID, String).self) { found = row }
        let matches = try await hasher.verify(password, hash: found?.1 ?? decoyHash)
        guard let (userId, _) = found, matches else { throw AuthError.invalidCredentials }
        try await throttle.forgive(attempt)
        try await throttle.clear(keys[0])
        let pair = try await startSession(userId: userId)
        return (try await user(userId), pair)
    }

    // MARK: Sessions and refresh tokens

    func startSession(userId: UUID) async throws -> TokenPair {
        let sessionId = UUID()
        let now = clock.now()
        let refresh = SecretToken.make(prefix: "llr_")
        try await client.withTransaction(logger: logger) { connection in
            try await connection.run("INSERT INTO sessions (session_id, user_id, created_at) VALUES (\(sessionId), \(userId), \(now))", logger: logger)
            try await connection.run("""
                INSERT INTO refresh_tokens (token_hash, session_id, user_id, issued_at, expires_at)
                VALUES (\(SecretToken.hash(refresh)), \(sessionId), \(userId), \(now), \(now.addingTimeInterval(Self.refreshLifetime)))
                """, logger: logger)
        }
        return TokenPair(accessToken: try await tokens.issue(userId: userId, sessionId: sessionId), refreshToken: refresh,
                         expiresIn: Int(tokens.lifetime))
    }

    /// Spends `refreshToken` and returns a new pair in the same family. A token that was already
    /// spent is a replay: the whole family is revoked, the thief's and the owner's alike.
    public func refresh(_ refreshToken: String) async throws -> TokenPair {
        let now = clock.now()
        let next = SecretToken.make(prefix: "llr_")
        enum Outcome: Sendable { case rotated(UUID, UUID), reused, invalid }
        let outcome: Outcome = try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query("""
                SELECT t.session_id, t.user_id, t.spent_at IS NOT NULL, t.expires_at <= \(now), s.revoked_at IS NOT NULL
                FROM refresh_tokens t JOIN sessions s USING (session_id)
                WHERE t.token_hash = \(SecretToken.hash(refreshToken)) FOR UPDATE OF t
                """, logger: logger)
            var row: (UUID, UUID, Bool, Bool, Bool)?
            for try await value in rows.decode((UUID, UUID, Bool, Bool, Bool).self) { row = value }
            guard let (sessionId, userId, spent, expired, revoked) = row else { return .invalid }
            if spent {
                try await connection.run("""
                    UPDATE sessions SET revoked_at = COALESCE(revoked_at, \(now)), revoked_reason = COALESCE(revoked_reason, 'refresh token reused')
                    WHERE session_id = \(sessionId)
                    """, logger: logger)
                return .reused
            }
            if expired || revoked { return .invalid }
            try await connection.run("UPDATE refresh_tokens SET spent_at = \(now) WHERE token_hash = \(SecretToken.hash(refreshToken))", logger: logger)
            try await connection.run("""
                INSERT INTO refresh_tokens (token_hash, session_id, user_id, issued_at, expires_at)
                VALUES (\(SecretToken.hash(next)), \(sessionId), \(userId), \(now), \(now.addingTimeInterval(Self.refreshLifetime)))
                """, logger: logger)
            return .rotated(userId, sessionId)
        }
        switch outcome {
        case .rotated(let userId, let sessionId):
            return TokenPair(accessToken: try await tokens.issue(userId: userId, sessionId: sessionId), refreshToken: next,
                             expiresIn: Int(tokens.lifetime))
        case .reused:
            logger.warning("refresh token reused; session revoked")
            throw AuthError.invalidRefreshToken
        case .invalid:
            throw AuthError.invalidRefreshToken
        }
    }

    public func logout(sessionId: UUID, userId: UUID) async throws {
        try await revokeSessions(userId: userId, only: sessionId, reason: "logout")
    }

    public func logoutAll(userId: UUID) async throws {
        try await revokeSessions(userId: userId, only: nil, reason: "logout everywhere")
    }

    func revokeSessions(userId: UUID, only sessionId: UUID?, reason: String, on connection: PostgresConnection? = nil) async throws {
        let now = clock.now()
        let query: PostgresQuery = """
            UPDATE sessions SET revoked_at = \(now), revoked_reason = \(reason)
            WHERE user_id = \(userId) AND revoked_at IS NULL AND (\(sessionId)::uuid IS NULL OR session_id = \(sessionId))
            """
        if let connection { try await connection.run(query, logger: logger) } else { try await client.run(query, logger: logger) }
    }

    // MARK: Authentication of requests

    /// A bearer access token whose session is still open.
    public func authenticate(accessToken: String) async throws -> Identity {
        let (userId, sessionId) = try await tokens.verify(accessToken)
        let rows = try await client.query("""
            SELECT revoked_at IS NULL FROM sessions WHERE session_id = \(sessionId) AND user_id = \(userId)
            """, logger: logger)
        for try await open in rows.decode(Bool.self) where open { return .user(userId: userId, sessionId: sessionId) }
        throw AuthError.unauthenticated("the session has ended; log in again")
    }

    /// A device key (ingestion only); records when it was last used.
    public func authenticate(deviceKey: String) async throws -> Identity {
        let now = clock.now()
        let rows = try await client.query("""
            UPDATE device_keys SET last_used_at = \(now)
            WHERE key_hash = \(SecretToken.hash(deviceKey)) AND revoked_at IS NULL
            RETURNING user_id, device_id
            """, logger: logger)
        for try await (userId, deviceId) in rows.decode((UUID, UUID).self) { return .device(userId: userId, deviceId: deviceId) }
        throw AuthError.unauthenticated("the device key is not valid")
    }

    // MARK: Profile

    public func user(_ userId: UUID) async throws -> UserRecord {
        let rows = try await client.query("""
            SELECT email, name, timezone, day_start_hour, week_start, currency, language, morning_time, evening_time,
                   reminder_kinds, version, created_at
            FROM rm_users WHERE user_id = \(userId)
            """, logger: logger)
        for try await row in rows.decode((String, String, String, Int16, Int16, String, String, String, String, [String], Int64, Date).self) {
            let profile = UserProfile(
                email: row.0, name: row.1, timezone: row.2, dayStartHour: Int(row.3), weekStart: Int(row.4), currency: row.5,
                language: Language(rawValue: row.6) ?? .en, morningTime: LocalTime(row.7) ?? LocalTime(hour: 8, minute: 0),
                eveningTime: LocalTime(row.8) ?? LocalTime(hour: 20, minute: 0),
                reminderKinds: row.9.compactMap(ReminderKind.init(rawValue:)))
            return UserRecord(id: userId, profile: profile, version: row.10, createdAt: row.11)
        }
        throw AuthError.notFound
    }

    /// Applies a partial change. `ifMatch`, when given, must be the current version (else 412).
    public func updateProfile(_ userId: UUID, change: ProfileChange, ifMatch: Int64?) async throws -> UserRecord {
        let current = try await user(userId)
        if let ifMatch, ifMatch != current.version { throw AuthError.versionMismatch(current: current.version) }
        let (profile, changed) = try change.apply(to: current.profile)
        guard !changed.isEmpty else { return current }
        let event = AccountEvent.ProfileChanged(userId: userId, profile: profile, changedFields: changed)
        do {
            try await store.append(
                to: StreamName(id: AccountEvent.streamId(userId), ownerId: userId, type: AccountEvent.streamType),
                expected: .exact(current.version),
                events: [try NewEvent(event, metadata: .user(userId))])
        } catch EventStoreError.wrongExpectedVersion(_, _, let actual) {
            if ifMatch != nil { throw AuthError.versionMismatch(current: actual) }
            throw EventStoreError.wrongExpectedVersion(stream: AccountEvent.streamId(userId), expected: .exact(current.version), actual: actual)
        }
        return try await user(userId)
    }

    /// Checks the current password, stores the new hash, ends every session and opens a new one
    /// for the caller, so only this device stays logged in.
    public func changePassword(_ userId: UUID, current: String, new: String) async throws -> TokenPair {
        try ValidationFailure.check(Passwords.validationErrors(new, field: "new_password"))
        // A stolen access token must not become a way to guess the password.
        let attempt = try await throttle.claim([("password-change:\(userId.uuidString)", Self.accountFailureLimit)])
        var stored: String?
        for try await hash in try await client.query("SELECT password_hash FROM credentials WHERE user_id = \(userId)", logger: logger).decode(String.self) {
            stored = hash
        }
        guard let stored, try await hasher.verify(current, hash: stored) else {
            throw ValidationFailure("current_password", "is not the current password")
        }
        try await throttle.forgive(attempt)
        try await setPassword(userId, new, reason: "changed by user")
        return try await startSession(userId: userId)
    }

    /// Stores a new password (as an event plus the hash) and revokes every session.
    func setPassword(_ userId: UUID, _ password: String, reason: String) async throws {
        let hash = try await hasher.hash(password)
        let now = clock.now()
        let event = AccountEvent.PasswordChanged(userId: userId, reason: reason)
        try await store.append(
            to: StreamName(id: AccountEvent.streamId(userId), ownerId: userId, type: AccountEvent.streamType), expected: .any,
            events: [try NewEvent(event, metadata: .user(userId))]
        ) { connection, _ in
            try await connection.run("UPDATE credentials SET password_hash = \(hash), updated_at = \(now) WHERE user_id = \(userId)", logger: logger)
            try await revokeSessions(userId: userId, only: nil, reason: "password changed", on: connection)
        }
    }

    // MARK: Devices

    public func createDevice(_ userId: UUID, name: String, kind: String, via: String = "session") async throws -> (DeviceRecord, String) {
        var errors: [FieldError] = []
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if let error = TextRules.labelError(trimmed, field: "name", maxLength: 100) { errors.append(error) }
        let deviceKind = DeviceKind(rawValue: kind)
        if deviceKind == nil { errors.append(FieldError("kind", "must be one of " + DeviceKind.allCases.map(\.rawValue).joined(separator: ", "))) }
        try ValidationFailure.check(errors)
        let deviceId = UUID()
        let key = SecretToken.make(prefix: "lld_")
        let now = clock.now()
        let event = AccountEvent.DeviceRegistered(userId: userId, deviceId: deviceId, name: trimmed, kind: deviceKind ?? .other, via: via)
        try await store.append(
            to: StreamName(id: AccountEvent.streamId(userId), ownerId: userId, type: AccountEvent.streamType), expected: .any,
            events: [try NewEvent(event, metadata: .user(userId))]
        ) { connection, _ in
            try await connection.run("""
                INSERT INTO device_keys (device_id, user_id, key_hash, created_at) VALUES (\(deviceId), \(userId), \(SecretToken.hash(key)), \(now))
                """, logger: logger)
        }
        return (DeviceRecord(id: deviceId, name: trimmed, kind: (deviceKind ?? .other).rawValue, createdAt: now, lastUsedAt: nil), key)
    }

    /// Active devices, oldest first, after `cursor` (created_at in whole microseconds, id):
    /// integers, so a position survives the round trip through a client exactly.
    public func devices(_ userId: UUID, after cursor: (micros: Int64, id: UUID)?, limit: Int) async throws -> [DeviceRecord] {
        let (afterMicros, afterId) = cursor ?? (Int64.min, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        let rows = try await client.query("""
            SELECT d.device_id, d.name, d.kind, d.created_at, k.last_used_at
            FROM rm_devices d LEFT JOIN device_keys k USING (device_id)
            WHERE d.user_id = \(userId) AND d.revoked_at IS NULL
              AND ((EXTRACT(EPOCH FROM d.created_at) * 1000000)::bigint, d.device_id) > (\(afterMicros), \(afterId))
            ORDER BY d.created_at, d.device_id LIMIT \(limit)
            """, logger: logger)
        var devices: [DeviceRecord] = []
        for try await (id, name, kind, created, lastUsed) in rows.decode((UUID, String, String, Date, Date?).self) {
            devices.append(DeviceRecord(id: id, name: name, kind: kind, createdAt: created, lastUsedAt: lastUsed))
        }
        return devices
    }

    /// Revokes a device and its key. Another user's device, or an unknown one, is `notFound`.
    public func revokeDevice(_ userId: UUID, deviceId: UUID) async throws {
        var active = false
        for try await found in try await client.query("""
            SELECT revoked_at IS NULL FROM rm_devices WHERE device_id = \(deviceId) AND user_id = \(userId)
            """, logger: logger).decode(Bool.self) { active = found }
        guard active else { throw AuthError.notFound }
        let now = clock.now()
        let event = AccountEvent.DeviceRevoked(userId: userId, deviceId: deviceId)
        try await store.append(
            to: StreamName(id: AccountEvent.streamId(userId), ownerId: userId, type: AccountEvent.streamType), expected: .any,
            events: [try NewEvent(event, metadata: .user(userId))]
        ) { connection, _ in
            try await connection.run("UPDATE device_keys SET revoked_at = \(now) WHERE device_id = \(deviceId) AND user_id = \(userId)", logger: logger)
        }
    }

    // MARK: Pairing

    public func createPairingCode(_ userId: UUID) async throws -> (code: String, expiresAt: Date) {
        let code = SecretToken.pairingCode()
        let now = clock.now()
        let expires = now.addingTimeInterval(Self.pairingLifetime)
        try await client.run("""
            INSERT INTO pairing_codes (code_hash, user_id, created_at, expires_at) VALUES (\(SecretToken.hash(code)), \(userId), \(now), \(expires))
            """, logger: logger)
        return (code, expires)
    }

    /// Trades a valid, unused code for a device key. Wrong codes count like wrong passwords.
    public func pair(code: String, deviceName: String, kind: String, address: String) async throws -> (DeviceRecord, String) {
        let key = "pairing-address:\(address.prefix(64))"
        let attempt = try await throttle.claim([(key, Self.accountFailureLimit)])
        let now = clock.now()
        let normalized = code.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        var userId: UUID?
        for try await id in try await client.query("""
            UPDATE pairing_codes SET used_at = \(now)
            WHERE code_hash = \(SecretToken.hash(normalized)) AND used_at IS NULL AND expires_at > \(now)
            RETURNING user_id
            """, logger: logger).decode(UUID.self) { userId = id }
        guard let userId else { throw AuthError.invalidPairingCode }
        try await throttle.forgive(attempt)
        return try await createDevice(userId, name: deviceName, kind: kind, via: "pairing code")
    }

    // MARK: Operator commands

    public func userId(email: String) async throws -> UUID {
        for try await id in try await client.query("SELECT user_id FROM rm_users WHERE email = \(Email.normalize(email))", logger: logger).decode(UUID.self) {
            return id
        }
        throw AuthError.notFound
    }

    public func resetPassword(email: String) async throws -> String {
        let userId = try await userId(email: email)
        let password = SecretToken.password()
        try await setPassword(userId, password, reason: "reset by operator")
        return password
    }

    public func listUsers() async throws -> [(id: UUID, email: String, name: String, createdAt: Date)] {
        var users: [(UUID, String, String, Date)] = []
        for try await row in try await client.query("SELECT user_id, email, name, created_at FROM rm_users ORDER BY created_at, user_id", logger: logger)
            .decode((UUID, String, String, Date).self) { users.append(row) }
        return users.map { (id: $0.0, email: $0.1, name: $0.2, createdAt: $0.3) }
    }
}
