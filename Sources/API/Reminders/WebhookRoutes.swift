import Core
import Domain
import Foundation
import Hummingbird
import Projections

struct WebhookDTO: ResponseEncodable {
    var id: String
    var url: String
    var events: [String]
    var status: String
    var disabledReason: String?
    var createdAt: Date
    /// Only in the answer that made it.
    var secret: String?

    init(_ endpoint: WebhookEndpoint, secret: String? = nil) {
        id = endpoint.id.uuidString.lowercased()
        url = endpoint.url
        events = endpoint.events
        status = endpoint.disabledAt == nil ? "active" : "disabled"
        disabledReason = endpoint.disabledReason
        createdAt = endpoint.createdAt
        self.secret = secret
    }
}

struct WebhookTestDTO: ResponseEncodable {
    var delivered: Bool
    @NullWhenEmpty var status: Int? = nil
    @NullWhenEmpty var error: String? = nil

    init(_ outcome: WebhookSender.Outcome) {
        switch outcome {
        case .delivered(let status):
            delivered = true
            self.status = status
        case .failed(let status, let error, _, _):
            delivered = false
            self.status = status
            self.error = error
        }
    }

    enum CodingKeys: String, CodingKey { case delivered, status, error }
}

/// A push to an event webhook: the event, how it went and the receiver's last answer.
struct WebhookDeliveryDTO: ResponseEncodable {
    var id: String
    var event: String
    var status: String
    var statusLabel: String
    var colorToken: String
    var attempts: Int
    var lastStatus: Int?
    var lastError: String?
    var dueAt: Date
    var dueLocal: String
    var deliveredAt: Date?

    /// `zone`: the user's, for a domain event's delivery, whose wall clock the outbox does not
    /// keep (a reminder's copy keeps the one of its due moment).
    init(_ delivery: WebhookDelivery, language: Language, zone: TimeZone?) {
        id = delivery.id.uuidString.lowercased()
        event = delivery.event
        status = delivery.status.rawValue
        statusLabel = LabelCatalogue.text("reminder.status.\(delivery.status.rawValue)", language)
        colorToken = switch delivery.status {
        case .delivered: "ds.semantic.positive"
        case .failed: "ds.semantic.negative"
        case .pending, .skipped: "ds.semantic.neutral"
        }
        attempts = delivery.attempts
        lastStatus = delivery.lastStatus
        lastError = delivery.lastError
        dueAt = delivery.dueAt
        dueLocal = delivery.dueLocal.isEmpty ? zone.map { LocalDueTime.text(at: delivery.dueAt, in: $0) } ?? "" : delivery.dueLocal
        deliveredAt = delivery.deliveredAt
    }
}

/// Event webhooks (`/api/v1/webhooks`), registered by `RemindersArea`.
struct WebhookRoutes {
    struct CreateRequest: Decodable {
        var url: String?
        var events: [String]?
        var secret: String?
    }

    let webhooks: EventWebhookService
    let profiles: ProfileService

    func register(on api: RouterGroup<AppRequestContext>) {
        let webhooks = self.webhooks, profiles = self.profiles
        let user = api.group("webhooks", context: UserRequestContext.self)
        user.post { request, context in
            let body = try await request.json(CreateRequest.self, context: context)
            let (endpoint, secret) = try await webhooks.create(context.command(), url: body.url, events: body.events, secret: body.secret)
            return EditedResponse(status: .created, response: WebhookDTO(endpoint, secret: secret))
        }
        user.get { _, context in
            Items(items: try await webhooks.list(context.userId).map { WebhookDTO($0) })
        }
        user.delete("{id}") { _, context in
            try await webhooks.delete(context.userId, try context.resourceId())
            return Response(status: .noContent)
        }
        user.get("{id}/deliveries") { request, context in
            let deliveries = try await webhooks.deliveries(context.userId, try context.resourceId(), limit: try Cursor.limit(request))
            let user = try await profiles.user(context.userId)
            let language = try await RequestLanguage.resolve(request) { user.profile.language }
            let zone = TimeZone(identifier: user.profile.timezone)
            return Items(items: deliveries.map { WebhookDeliveryDTO($0, language: language, zone: zone) })
        }
        user.post("{id}/test") { _, context in
            WebhookTestDTO(try await webhooks.test(context.userId, try context.resourceId(), http: WebhookSender.shared))
        }
    }
}
