import Domain
import Foundation
import Projections

/// The user's profile and settings (`/me`).
public struct ProfileService: Sendable {
    let store: AccountsStore

    public func user(_ userId: UUID) async throws -> UserRecord {
        try await store.user(userId)
    }

    /// Applies a partial change; with If-Match, a stale version is 412.
    public func update(_ context: CommandContext, change: ProfileChange) async throws -> UserRecord {
        try await store.execute(context, .changeProfile(change))
        return try await store.user(context.userId)
    }
}

/// What an operator does from the server's shell (`lifelog users …`).
public struct OperatorCommands: Sendable {
    let store: AccountsStore

    public func userId(email: String) async throws -> UUID {
        guard let id = try await store.users.userId(email: Email.normalize(email)) else { throw ResourceError.notFound }
        return id
    }

    /// Sets a random password, returned once, and ends every session.
    public func resetPassword(email: String) async throws -> String {
        let userId = try await userId(email: email)
        let password = SecretToken.password()
        try await store.setPassword(userId, password, reason: "reset by operator")
        return password
    }

    public func listUsers() async throws -> [(id: UUID, email: String, name: String, createdAt: Date)] {
        try await store.users.listUsers()
    }
}
