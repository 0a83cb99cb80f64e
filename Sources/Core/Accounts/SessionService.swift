import Domain
import EventStore
import Foundation
import Logging
import Projections

/// Registration, login, refresh tokens, sessions and passwords, and authenticating requests.
public struct SessionService: Sendable {
    public static let refreshLifetime = RefreshTokenRule.lifetime
    /// Failures for one account from one address before that pair gets 429.
    public static let accountFailureLimit = 5
    public static let addressFailureLimit = 20
    /// Failures for an account from every address after which each attempt waits (1 s more per
    /// further failure, at most `maxSlowdown`): slowed, never locked, so an attacker elsewhere
    /// cannot lock the owner out.
    public static let slowdownAfter = 5
    public static let maxSlowdown: Duration = .seconds(10)

    let store: AccountsStore
    /// Compared against when the email is unknown, so both failures take the same time.
    let decoyHash: String
    /// Registrations per address in the throttle's window (`REGISTRATIONS_PER_ADDRESS`).
    let registrationsPerAddress: Int
    /// Attempts from one address take turns (in this process), so parallel correct logins never
    /// see each other's pending attempt as a failure.
    let attempts = AsyncGates()

    init(store: AccountsStore, registrationsPerAddress: Int) async throws {
        self.store = store
        self.registrationsPerAddress = registrationsPerAddress
        decoyHash = try await store.hasher.hash(SecretToken.password())
    }

    /// How long an attempt waits after `failures` failures for its account from anywhere.
    static func slowdown(failures: Int) -> Duration {
        guard failures >= slowdownAfter else { return .zero }
        return min(.seconds(failures - slowdownAfter + 1), maxSlowdown)
    }

    var logger: Logger { store.logger }

    /// `address` (the client's, for the API; nil from the command line) is throttled: every
    /// registration that passes the rules counts, successful or not.
    /// The account's rules were read at the edge (`NewAccount.validated`), so a refused
    /// registration never pays for a bcrypt hash.
    public func register(_ account: NewAccount, address: String? = nil) async throws -> (UserRecord, TokenPair) {
        let userId = UUID()
        let command = AccountCommand.register(userId: userId, profile: account.profile)
        if let address { _ = try await store.throttle.claim([("register:\(ClientAddress.throttleKey(address))", registrationsPerAddress)]).attempt() }
        let hash = try await store.hasher.hash(account.password)
        let now = store.clock.now()
        let sessions = store.sessions
        do {
            try await store.execute(CommandContext(userId: userId), command) { connection, _ in
                try await sessions.insertCredentials(userId: userId, hash: hash, at: now, on: connection)
            }
        } catch let error where PostgresErrors.sqlState(error) == PostgresErrors.uniqueViolation {
            throw AuthError.emailTaken
        }
        let pair = try await store.startSession(userId: userId)
        return (try await store.user(userId), pair)
    }

    /// Same answer and about the same time for a wrong email and a wrong password.
    public func login(email: String, password: String, address: String) async throws -> (UserRecord, TokenPair) {
        let email = Email.normalize(email)
        // Text that could never be an account still counts against the address, not a new key.
        let account = Email.isPlausible(email) ? store.throttleName(email) : "invalid"
        let address = ClientAddress.throttleKey(address)
        let (accountKey, pairKey, addressKey) = ("account:\(account)", "account-address:\(account)|\(address)", "address:\(address)")
        // Failures from every address slow the account down; only this address's own lock it out.
        // A slowed account's attempts also take turns, so parallel guesses cannot share one wait.
        let wait = Self.slowdown(failures: try await store.throttle.failures(accountKey))
        let store = self.store, decoyHash = self.decoyHash, attempts = self.attempts
        @Sendable func check() async throws -> UUID {
            try await attempts.run(addressKey) {
                let attempt = try await store.throttle.claim([(pairKey, Self.accountFailureLimit), (addressKey, Self.addressFailureLimit)]).attempt()
                let found = Email.isPlausible(email) && !password.contains("\0") ? try await store.sessions.credentials(email: email) : nil
                let matches = try await store.hasher.verify(password, hash: found?.1 ?? decoyHash)
                guard let (userId, _) = found, matches else {
                    try await store.throttle.record(accountKey)
                    throw AuthError.invalidCredentials
                }
                // A success never counts, and ends this address's streak of failures for the account.
                try await store.throttle.forgive(attempt)
                try await store.throttle.clear(pairKey)
                return userId
            }
        }
        let userId = wait > .zero
            ? try await attempts.run(accountKey) {
                try await Task.sleep(for: wait)
                return try await check()
            }
            : try await check()
        let pair = try await store.startSession(userId: userId)
        return (try await store.user(userId), pair)
    }

    /// Spends `refreshToken` and returns a new pair in the same family. A token that was already
    /// spent is a replay: the whole family is revoked, the thief's and the owner's alike.
    public func refresh(_ refreshToken: String) async throws -> TokenPair {
        try await refreshSession(refreshToken).pair
    }

    /// `refresh`, also saying whose session it is (the browser session answers with the user).
    public func refreshSession(_ refreshToken: String) async throws -> (userId: UUID, pair: TokenPair) {
        let now = store.clock.now()
        let next = SecretToken.make(prefix: "llr_")
        let decision = try await store.sessions.present(SecretToken.hash(refreshToken), nextHash: SecretToken.hash(next), at: now) {
            RefreshTokenRule.decide($0, now: now)
        }
        switch decision {
        case .rotate(let sessionId, let userId, _):
            return (userId, TokenPair(accessToken: try await store.tokens.issue(userId: userId, sessionId: sessionId), refreshToken: next,
                                      expiresIn: Int(store.tokens.lifetime)))
        case .revokeFamily:
            logger.warning("refresh token reused; session revoked")
            throw AuthError.invalidRefreshToken
        case .refuse:
            throw AuthError.invalidRefreshToken
        }
    }

    public func logout(sessionId: UUID, userId: UUID) async throws {
        try await store.revokeSessions(userId: userId, only: sessionId, reason: "logout")
    }

    /// Ends the session a refresh token belongs to (spent or not: a browser signing out holds
    /// the newest one), or every session of its user; nothing for a token no session has.
    /// Answers the user, or nil.
    @discardableResult
    public func logout(refreshToken: String, everywhere: Bool) async throws -> UUID? {
        guard let (sessionId, userId) = try await store.sessions.owner(ofRefreshToken: SecretToken.hash(refreshToken)) else { return nil }
        try await store.revokeSessions(userId: userId, only: everywhere ? nil : sessionId, reason: everywhere ? "logout everywhere" : "logout")
        return userId
    }

    public func logoutAll(userId: UUID) async throws {
        try await store.revokeSessions(userId: userId, only: nil, reason: "logout everywhere")
    }

    /// Checks the current password, stores the new hash, ends every session and opens a new one
    /// for the caller, so only this device stays logged in.
    public func changePassword(_ userId: UUID, current: String, new: String) async throws -> TokenPair {
        try ValidationFailure.check(Passwords.validationErrors(new, field: "new_password"))
        // A stolen access token must not become a way to guess the password.
        let attempt = try await store.throttle.claim([("password-change:\(userId.uuidString)", Self.accountFailureLimit)]).attempt()
        guard let stored = try await store.sessions.passwordHash(userId: userId), try await store.hasher.verify(current, hash: stored) else {
            throw ValidationFailure("current_password", "is not the current password")
        }
        try await store.throttle.forgive(attempt)
        try await store.setPassword(userId, new, reason: "changed by user")
        return try await store.startSession(userId: userId)
    }

    /// A bearer access token whose session is still open.
    public func authenticate(accessToken: String) async throws -> Identity {
        let (userId, sessionId) = try await store.tokens.verify(accessToken)
        guard try await store.sessions.isOpen(sessionId: sessionId, userId: userId) else {
            throw AuthError.unauthenticated("the session has ended; log in again")
        }
        return .user(userId: userId, sessionId: sessionId)
    }

    /// The user of a session that is still open; nil for one that ended or never was.
    public func openSession(_ sessionId: UUID) async throws -> UUID? {
        try await store.sessions.user(ofOpenSession: sessionId)
    }

    /// A device key (ingestion only); records when it was last used.
    public func authenticate(deviceKey: String) async throws -> Identity {
        guard let (userId, deviceId) = try await store.deviceKeys.use(keyHash: SecretToken.hash(deviceKey), at: store.clock.now()) else {
            throw AuthError.unauthenticated("the device key is not valid")
        }
        return .device(userId: userId, deviceId: deviceId)
    }
}
