/// Typed failures of authentication and accounts; the API maps them to HTTP in one place.
public enum AuthError: Error, Sendable, Equatable {
    /// Wrong email or wrong password: the same answer for both.
    case invalidCredentials
    case throttled(retryAfterSeconds: Int)
    case unauthenticated(String)
    /// Authenticated, but this kind of credential may not do this (a device key on `/me`).
    case forbidden(String)
    /// A spent, expired, revoked or unknown refresh token. A spent one also revoked its family.
    case invalidRefreshToken
    case emailTaken
    case notFound
    case invalidPairingCode
    /// `If-Match` named another version than the current one.
    case versionMismatch(current: Int64)
}
