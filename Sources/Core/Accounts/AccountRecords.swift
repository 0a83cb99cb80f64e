import Domain
import Foundation

/// A user as the accounts read model holds it.
public struct UserRecord: Sendable, Equatable {
    public var id: UUID
    public var profile: UserProfile
    public var version: Int64
    public var createdAt: Date
}

public struct DeviceRecord: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var kind: String
    public var createdAt: Date
    public var lastUsedAt: Date?
}

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
