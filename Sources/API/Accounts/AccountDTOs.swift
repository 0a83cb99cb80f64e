import Core
import Domain
import Foundation
import Hummingbird
import Projections

struct RemindersDTO: Codable {
    var morningTime: String
    var eveningTime: String
    var enabledKinds: [String]
    /// Only in `/me`'s answers: where reminders are pushed, and whether that still works.
    var webhookUrl: String?
    var webhookStatus: String?
    var webhookDisabledReason: String?
    /// Only in the answer that made or replaced it.
    var webhookSecret: String?
}

struct UserDTO: ResponseEncodable {
    var id: String
    var email: String
    var name: String
    var timezone: String
    var dayStartHour: Int
    var weekStart: Int
    var currency: String
    var language: String
    var reminders: RemindersDTO
    var createdAt: Date
    var version: Int64

    /// `/me`'s answer: the profile with the reminders webhook's state.
    init(_ user: UserRecord, webhook: WebhookEndpoint?, newSecret: String? = nil) {
        self.init(user)
        reminders.webhookUrl = webhook?.url
        reminders.webhookStatus = webhook == nil ? "none" : webhook?.disabledAt == nil ? "active" : "disabled"
        reminders.webhookDisabledReason = webhook?.disabledReason
        reminders.webhookSecret = newSecret
    }

    init(_ user: UserRecord) {
        let p = user.profile
        id = user.id.uuidString.lowercased()
        email = p.email
        name = p.name
        timezone = p.timezone
        dayStartHour = p.dayStartHour
        weekStart = p.weekStart
        currency = p.currency
        language = p.language.rawValue
        reminders = RemindersDTO(morningTime: p.morningTime.description, eveningTime: p.eveningTime.description,
                                 enabledKinds: p.reminderKinds.map(\.rawValue))
        createdAt = user.createdAt
        version = user.version
    }
}

struct TokenDTO: ResponseEncodable {
    var accessToken: String
    var refreshToken: String
    var tokenType = "Bearer"
    var expiresIn: Int
    var user: UserDTO?

    init(_ pair: TokenPair, user: UserRecord? = nil) {
        accessToken = pair.accessToken
        refreshToken = pair.refreshToken
        expiresIn = pair.expiresIn
        self.user = user.map(UserDTO.init)
    }
}

struct DeviceDTO: ResponseEncodable {
    var id: String
    var name: String
    var kind: String
    var createdAt: Date
    var lastUsedAt: Date?
    /// The user's wall clock at the last use (`YYYY-MM-DDTHH:MM`, as a reminder's `due_local`),
    /// what a page shows: the instant above is UTC.
    var lastUsedLocal: String?
    /// Present once, in the answer that created the device.
    var apiKey: String?
    /// Beside the key: where the phone apps lifelog serves are pointed (issue 27).
    var connect: Connect?

    struct Connect: Encodable, Sendable {
        var serverUrl: String
        var healthpushUrl: String
        var healthpushSecretHeader = "X-Webhook-Secret"
        var pulseUrl: String

        /// From the server's root as the request named it (its Host, and the scheme a proxy in
        /// front says in X-Forwarded-Proto).
        init(root: String) {
            serverUrl = root
            healthpushUrl = root + HealthPushClient.path
            pulseUrl = root + "/api/health"
        }

        init?(_ request: Request) {
            guard let host = request.head.authority, !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
            let scheme = request.headers[.forwardedProto]?.lowercased() == "https" ? "https" : "http"
            self.init(root: "\(scheme)://\(host)")
        }
    }

    init(_ device: DeviceRecord, zone: TimeZone? = nil, apiKey: String? = nil, connect: Connect? = nil) {
        id = device.id.uuidString.lowercased()
        name = device.name
        kind = device.kind
        createdAt = device.createdAt
        lastUsedAt = device.lastUsedAt
        if let used = device.lastUsedAt, let zone { lastUsedLocal = LocalDueTime.text(at: used, in: zone) }
        self.apiKey = apiKey
        self.connect = apiKey == nil ? nil : connect
    }
}

