import Domain
import Foundation
import Projections

/// Erasing an account for good (issue 29): `DELETE /api/v1/me` with the current password, or
/// `lifelog users erase`. The user's data key is deleted, so what the log holds of them can no
/// longer be opened, and every row kept of them beside the log goes in the same transaction
/// (`ErasureStore`). Their sessions end with it: access tokens stop working at once.
public struct ErasureService: Sendable {
    let store: AccountsStore

    /// The user asks, and proves it with their password (throttled like a password change: a
    /// stolen access token must not become a way to guess it, nor to erase the account).
    public func erase(_ userId: UUID, password: String?) async throws {
        guard let password, !password.isEmpty else { throw ValidationFailure("password", "is required: your current password") }
        let attempt = try await store.throttle.claim([("erase:\(userId.uuidString)", SessionService.accountFailureLimit)]).attempt()
        guard let stored = try await store.sessions.passwordHash(userId: userId), try await store.hasher.verify(password, hash: stored) else {
            throw ValidationFailure("password", "is not your current password")
        }
        try await store.throttle.forgive(attempt)
        try await eraseAccount(userId)
    }

    /// The operator erases the account with this email, then prunes the deleted rows from the
    /// tables' pages (as the tables' owner, which the operator's command is); answers its id.
    @discardableResult
    public func erase(email: String) async throws -> UUID {
        guard let userId = try await store.users.userId(email: Email.normalize(email)) else { throw ResourceError.notFound }
        try await eraseAccount(userId)
        try await store.erasures.vacuumAfterErasure()
        return userId
    }

    func eraseAccount(_ userId: UUID) async throws {
        let user = try await store.user(userId)
        let email = Email.normalize(user.profile.email), name = store.throttleName(email)
        // The throttle's names of the email: keyed now, the address itself before (an upgrade).
        try await store.erasures.erase(userId, email: email, throttleKeys: [
            "account:\(name)", "account:\(email)", "erase:\(userId.uuidString)", "password-change:\(userId.uuidString)",
        ], throttlePrefixes: ["account-address:\(name)|", "account-address:\(email)|"])
        store.keyring.forget(userId)
    }
}
