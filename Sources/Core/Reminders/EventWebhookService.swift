import AsyncHTTPClient
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// Event webhooks (`/webhooks`): chosen domain events and reminders pushed to an automation
/// (Home Assistant, a script), through the same outbox, signing and retries as reminders.
public struct EventWebhookService: Sendable {
    /// Each event fans out to every webhook that asked for it: a user's count is bounded.
    public static let maximum = 10
    let endpoints: WebhookEndpointStore
    let deliveryLog: WebhookDeliveryLog
    let clock: any WallClock
    let allowPrivate: Bool

    public init(client: PostgresClient, clock: any WallClock, allowPrivateWebhooks: Bool, sealer: SecretSealer, logger: Logger) {
        endpoints = WebhookEndpointStore(client: client, sealer: sealer, logger: logger)
        deliveryLog = WebhookDeliveryLog(client: client, logger: logger)
        self.clock = clock
        allowPrivate = allowPrivateWebhooks
    }

    /// Makes a webhook; the secret (given, or generated) is returned this once. Its id derives
    /// from the request's Idempotency-Key, like every other create's: a retry of a creation that
    /// was stored (its answer lost) finds it and answers with it, secret included, and stores
    /// nothing twice.
    public func create(_ context: CommandContext, url: String?, events: [String]?, secret: String?) async throws -> (WebhookEndpoint, String) {
        var errors: [FieldError] = []
        if let url { if let problem = await WebhookTarget.saveProblem(url, allowPrivate: allowPrivate) { errors.append(FieldError("url", problem)) } }
        else { errors.append(FieldError("url", "is required")) }
        errors += WebhookEvents.errors(events ?? [])
        if let secret, !WebhookSender.isValidSecret(secret) {
            errors.append(FieldError("secret", "must be whsec_ followed by the base64 of 24 to 64 random bytes"))
        }
        try ValidationFailure.check(errors)
        guard let endpoint = try await endpoints.createEvents(
            context.userId, id: context.newId("webhook"), url: url ?? "", events: Array(Set(events ?? [])).sorted(),
            secret: secret ?? WebhookSender.newSecret(), maximum: Self.maximum, now: clock.now())
        else { throw ValidationFailure("url", "at most \(Self.maximum) webhooks; remove one first") }
        return (endpoint, endpoint.secret)
    }

    public func list(_ userId: UUID) async throws -> [WebhookEndpoint] {
        try await endpoints.events(of: userId)
    }

    /// The webhook's recent deliveries, newest first.
    public func deliveries(_ userId: UUID, _ id: UUID, limit: Int) async throws -> [WebhookDelivery] {
        guard try await endpoints.event(userId, id) != nil else { throw ResourceError.notFound }
        return try await deliveryLog.recent(userId, endpoint: id, limit: limit)
    }

    public func delete(_ userId: UUID, _ id: UUID) async throws {
        guard try await endpoints.deleteEvent(userId, id) else { throw ResourceError.notFound }
    }

    /// Sends a signed `webhook.test` event now and says how the receiver answered.
    /// `http` must not follow redirects (`WebhookSender.makeClient()`): a redirect could lead the
    /// test to an internal address.
    public func test(_ userId: UUID, _ id: UUID, http: HTTPClient) async throws -> WebhookSender.Outcome {
        guard let endpoint = try await endpoints.event(userId, id) else { throw ResourceError.notFound }
        let now = clock.now()
        var json = JSONText()
        json.open()
        json.field("type", WebhookEvents.test)
        json.field("timestamp", now.formatted(.iso8601))
        json.key("data")
        json.open()
        json.field("webhook_id", endpoint.id.uuidString.lowercased())
        json.close()
        json.close()
        // A person waits for this answer: 4 s, not a background push's 20.
        let limit = Duration.seconds(4)
        let sender = WebhookSender(http: http, allowPrivate: allowPrivate, limit: limit)
        let started = ContinuousClock.now
        let outcome = await sender.send(id: "test/\(UUID().uuidString.lowercased())", body: json.text, to: endpoint.url,
                                        secrets: endpoint.signingSecrets(at: now), at: now)
        // No HTTP answer takes the whole limit, whether the port was closed (at once) or nothing
        // answered: how long the test took must not tell them apart either.
        if case .failed(nil, _, _, _) = outcome { try? await Task.sleep(until: started + limit) }
        return outcome
    }
}
