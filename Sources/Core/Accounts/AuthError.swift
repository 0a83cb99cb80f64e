import Domain
import Foundation
import Projections

/// Typed failures of authentication and accounts; they describe their own problem+json.
public enum AuthError: ProblemDescribing, Equatable {
    /// Wrong email or wrong password: the same answer for both.
    case invalidCredentials
    case throttled(retryAfterSeconds: Int)
    case unauthenticated(String)
    /// Authenticated, but this kind of credential may not do this (a device key on `/me`).
    case forbidden(String)
    /// A spent, expired, revoked or unknown refresh token. A spent one also revoked its family.
    case invalidRefreshToken
    case emailTaken
    case invalidPairingCode

    public var status: Int {
        switch self {
        case .invalidCredentials, .unauthenticated, .invalidRefreshToken, .invalidPairingCode: 401
        case .throttled: 429
        case .forbidden: 403
        case .emailTaken: 409
        }
    }

    public var slug: String {
        switch self {
        case .invalidCredentials: "invalid-credentials"
        case .throttled: "throttled"
        case .unauthenticated: "unauthenticated"
        case .forbidden: "forbidden"
        case .invalidRefreshToken: "invalid-refresh-token"
        case .emailTaken: "email-taken"
        case .invalidPairingCode: "invalid-pairing-code"
        }
    }

    public var title: String {
        switch self {
        case .invalidCredentials: "Invalid credentials"
        case .throttled: "Too many attempts"
        case .unauthenticated, .invalidRefreshToken, .invalidPairingCode: "Unauthenticated"
        case .forbidden: "Forbidden"
        case .emailTaken: "Conflict"
        }
    }

    public var detail: String {
        switch self {
        case .invalidCredentials: "The email or the password is wrong."
        case .throttled(let seconds): "Too many attempts; try again in \(seconds) seconds."
        case .unauthenticated(let detail), .forbidden(let detail): detail
        case .invalidRefreshToken: "The refresh token is not valid (spent, expired or revoked); log in again."
        case .emailTaken: "An account with this email already exists."
        case .invalidPairingCode: "The pairing code is wrong, expired or already used."
        }
    }

    public var retryAfterSeconds: Int? {
        if case .throttled(let seconds) = self { return seconds }
        return nil
    }
}

extension ThrottleClaim {
    /// The counted attempt's id, or the refusal as the 429 the caller answers.
    func attempt() throws(AuthError) -> UUID {
        switch self {
        case .counted(let id): id
        case .refused(let seconds): throw .throttled(retryAfterSeconds: seconds)
        }
    }
}
