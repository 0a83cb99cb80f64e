import Foundation

/// Events of a user's stream (`user-<uuid>`). Passwords and secrets never enter the log: only
/// the fact that a password changed, or a device key was made, does.
public enum AccountEvent: AreaEvent {
    case registered(Registered)
    case profileChanged(ProfileChanged)
    case passwordChanged(PasswordChanged)
    case deviceRegistered(DeviceRegistered)
    case deviceRevoked(DeviceRevoked)

    public var payload: any DomainEvent {
        switch self {
        case .registered(let event): event
        case .profileChanged(let event): event
        case .passwordChanged(let event): event
        case .deviceRegistered(let event): event
        case .deviceRevoked(let event): event
        }
    }

    public init?(type: String, version: Int16, json: String) throws {
        switch type {
        case Registered.type: self = .registered(try Self.payload(Registered.self, version, json))
        case ProfileChanged.type: self = .profileChanged(try Self.payload(ProfileChanged.self, version, json))
        case PasswordChanged.type: self = .passwordChanged(try Self.payload(PasswordChanged.self, version, json))
        case DeviceRegistered.type: self = .deviceRegistered(try Self.payload(DeviceRegistered.self, version, json))
        case DeviceRevoked.type: self = .deviceRevoked(try Self.payload(DeviceRevoked.self, version, json))
        default: return nil
        }
    }

    public static let streamType = "user"

    public static func streamId(_ userId: UUID) -> String { "user-\(userId.uuidString.lowercased())" }

    public struct Registered: DomainEvent, Equatable {
        public static let type = "user.registered"
        public var userId: UUID
        public var profile: UserProfile
        public init(userId: UUID, profile: UserProfile) {
            self.userId = userId
            self.profile = profile
        }
    }

    /// The profile after the change, whole: projections need no earlier state to apply it.
    public struct ProfileChanged: DomainEvent, Equatable {
        public static let type = "user.profile_changed"
        public var userId: UUID
        public var profile: UserProfile
        public var changedFields: [String]
        public init(userId: UUID, profile: UserProfile, changedFields: [String]) {
            self.userId = userId
            self.profile = profile
            self.changedFields = changedFields
        }
    }

    public struct PasswordChanged: DomainEvent, Equatable {
        public static let type = "user.password_changed"
        public var userId: UUID
        public var reason: String
        public init(userId: UUID, reason: String) {
            self.userId = userId
            self.reason = reason
        }
    }

    public struct DeviceRegistered: DomainEvent, Equatable {
        public static let type = "device.registered"
        public var userId: UUID
        public var deviceId: UUID
        public var name: String
        public var kind: DeviceKind
        public var via: String
        public init(userId: UUID, deviceId: UUID, name: String, kind: DeviceKind, via: String) {
            self.userId = userId
            self.deviceId = deviceId
            self.name = name
            self.kind = kind
            self.via = via
        }
    }

    public struct DeviceRevoked: DomainEvent, Equatable {
        public static let type = "device.revoked"
        public var userId: UUID
        public var deviceId: UUID
        public init(userId: UUID, deviceId: UUID) {
            self.userId = userId
            self.deviceId = deviceId
        }
    }

    public static let types = [Registered.type, ProfileChanged.type, PasswordChanged.type, DeviceRegistered.type, DeviceRevoked.type]
}

public enum DeviceKind: String, Codable, Sendable, CaseIterable {
    case watch, ring, phone, scale, app, automation, other
}

/// JSON in the shape every event payload uses (snake_case keys, ISO dates).
public enum EventCoding {
    public static func encode(_ value: some Encodable) throws -> String {
        if let event = value as? any SelfEncodingEvent { return event.encodedJSON() }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(json.utf8))
    }
}
