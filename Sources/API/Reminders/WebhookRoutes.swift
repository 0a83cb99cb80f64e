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
    var status: Int?
    var error: String?

    init(_ outcome: WebhookSender.Outcome) {
        switch outcome {
        case .delivered(let status): (delivered, self.status, error) = (true, status, nil)
        case .failed(let status, let error, _, _): (delivered, self.status, self.error) = (false, status, error)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(delivered, forKey: .delivered)
        try container.encode(status, forKey: .status)
        try container.encode(error, forKey: .error)
    }

    enum CodingKeys: String, CodingKey { case delivered, status, error }
}

/// Event webhooks (`/api/v1/webhooks`), registered by `RemindersArea`.
struct WebhookRoutes {
    struct CreateRequest: Decodable {
        var url: String?
        var events: [String]?
        var secret: String?
    }

    let webhooks: EventWebhookService

    func register(on api: RouterGroup<AppRequestContext>) {
        let webhooks = self.webhooks
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
        user.post("{id}/test") { _, context in
            WebhookTestDTO(try await webhooks.test(context.userId, try context.resourceId(), http: WebhookSender.shared))
        }
    }
}
