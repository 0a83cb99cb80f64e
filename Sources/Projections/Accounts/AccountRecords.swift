import Domain
import Foundation

/// A user as the accounts read model holds it.
public struct UserRecord: Sendable, Equatable {
    public var id: UUID
    public var profile: UserProfile
    public var version: Int64
    public var createdAt: Date
    public init(id: UUID, profile: UserProfile, version: Int64, createdAt: Date) {
        self.id = id
        self.profile = profile
        self.version = version
        self.createdAt = createdAt
    }
}

/// What reads across areas need of a user: how their days fall, their money and their words.
public struct UserSettings: Sendable, Equatable {
    public var calendar: UserCalendar
    public var currency: Currency
    public var language: Language
    public init(calendar: UserCalendar, currency: Currency, language: Language) {
        self.calendar = calendar
        self.currency = currency
        self.language = language
    }
}

public struct DeviceRecord: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var kind: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public init(id: UUID, name: String, kind: String, createdAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.name = name
        self.kind = kind
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
