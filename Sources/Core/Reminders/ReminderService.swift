import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// The reminders a user can pull and acknowledge, and where their pushes go (`/reminders`,
/// the webhook part of `/me`).
public struct ReminderService: Sendable {
    let outbox: ReminderOutboxStore
    let endpoints: WebhookEndpointStore
    let clock: any WallClock
    public let allowPrivateWebhooks: Bool

    public init(client: PostgresClient, clock: any WallClock, allowPrivateWebhooks: Bool, sealer: SecretSealer, logger: Logger) {
        outbox = ReminderOutboxStore(client: client, sealer: sealer, logger: logger)
        endpoints = WebhookEndpointStore(client: client, sealer: sealer, logger: logger)
        self.clock = clock
        self.allowPrivateWebhooks = allowPrivateWebhooks
    }

    public func list(_ userId: UUID, statuses: [ReminderStatus], before cursor: (Date, UUID)?, limit: Int) async throws -> [OutboxItem] {
        try await outbox.list(userId, statuses: statuses, before: cursor, limit: limit)
    }

    /// Marks a pulled reminder as shown; another user's reminder is not found.
    public func acknowledge(_ userId: UUID, _ id: UUID) async throws -> OutboxItem {
        guard let item = try await outbox.acknowledge(userId, id, now: clock.now()) else { throw ResourceError.notFound }
        return item
    }

    public func webhook(_ userId: UUID) async throws -> WebhookEndpoint? {
        try await endpoints.reminders(of: userId)
    }

    /// What is wrong with a change of the reminders webhook, field by field (nothing is saved).
    public func webhookErrors(_ userId: UUID, url: PatchField<String>, secret: PatchField<String>) async throws -> [FieldError] {
        var errors: [FieldError] = []
        if let url = url.newValue, let problem = await WebhookTarget.saveProblem(url, allowPrivate: allowPrivateWebhooks) {
            errors.append(FieldError("reminders.webhook_url", problem))
        }
        if let secret = secret.newValue, !WebhookSender.isValidSecret(secret) {
            errors.append(FieldError("reminders.webhook_secret", "must be whsec_ followed by the base64 of 24 to 64 random bytes"))
        }
        if secret.isClear { errors.append(FieldError("reminders.webhook_secret", "cannot be cleared; send a new one, or leave it out")) }
        if case .keep = url, secret.newValue != nil, try await endpoints.reminders(of: userId) == nil {
            errors.append(FieldError("reminders.webhook_secret", "set reminders.webhook_url first"))
        }
        return errors
    }

    /// Saves a checked change: a URL without a secret yet gets one generated. Returns the secret
    /// when it is new (the only time it is shown).
    public func applyWebhook(_ userId: UUID, url: PatchField<String>, secret: PatchField<String>) async throws -> String? {
        switch url {
        case .clear:
            try await endpoints.removeReminders(userId)
            return nil
        case .keep:
            // webhookErrors has checked there is a webhook to give the secret to.
            guard let secret = secret.newValue, let current = try await endpoints.reminders(of: userId) else { return nil }
            try await endpoints.setReminders(userId, url: current.url, newSecret: secret, now: clock.now())
            return secret
        case .set(let address):
            let existing = try await endpoints.reminders(of: userId)
            let newSecret = secret.newValue ?? (existing == nil ? WebhookSender.newSecret() : nil)
            try await endpoints.setReminders(userId, url: address, newSecret: newSecret, now: clock.now())
            return newSecret
        }
    }
}
