import Domain
import Foundation

public struct TokenPair: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresIn: Int
}

/// Who is calling: a user's session, or a device key (ingestion only).
public enum Identity: Sendable, Equatable {
    case user(userId: UUID, sessionId: UUID)
    case device(userId: UUID, deviceId: UUID)

    public var userId: UUID {
        switch self {
        case .user(let userId, _), .device(let userId, _): userId
        }
    }
}
