import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// A place pushes go: the user's reminders webhook, or an event webhook.
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: UUID
    public var userId: UUID
    public var purpose: String
    public var url: String
    public var events: [String]
    public var secret: String
    public var previousSecret: String?
    public var previousUntil: Date?
    public var disabledAt: Date?
    public var disabledReason: String?
    public var createdAt: Date

    public init(id: UUID, userId: UUID, purpose: String, url: String, events: [String], secret: String, previousSecret: String?,
                previousUntil: Date?, disabledAt: Date?, disabledReason: String?, createdAt: Date) {
        self.id = id
        self.userId = userId
        self.purpose = purpose
        self.url = url
        self.events = events
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousUntil = previousUntil
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.createdAt = createdAt
    }

    /// The secrets that sign an attempt at `now`: the current one, and the one it replaced
    /// while that is still valid.
    public func signingSecrets(at now: Date) -> [String] {
        guard let previousSecret, let previousUntil, previousUntil > now else { return [secret] }
        return [secret, previousSecret]
    }
}

/// The SQL over `webhook_endpoints`. Signing secrets are stored sealed (`SecretSealer`): sealed
/// here on the way in, opened here on the way out; no caller sees a sealed value.
public struct WebhookEndpointStore: Sendable {
    let client: PostgresClient
    let sealer: any SecretSealing
    let logger: Logger

    public init(client: PostgresClient, sealer: any SecretSealing, logger: Logger) {
        self.client = client
        self.sealer = sealer
        self.logger = logger
    }

    private func endpoints(_ query: PostgresQuery, on connection: PostgresConnection? = nil) async throws -> [WebhookEndpoint] {
        var found: [WebhookEndpoint] = []
        let rows = if let connection { try await connection.rows(query, logger: logger) } else { try await client.rows(query, logger: logger) }
        for try await r in rows.decode((UUID, UUID, String, String, [String], String, String?, Date?, Date?, String?, Date).self) {
            found.append(WebhookEndpoint(id: r.0, userId: r.1, purpose: r.2, url: r.3, events: r.4, secret: try sealer.open(r.5),
                                         previousSecret: try r.6.map(sealer.open), previousUntil: r.7, disabledAt: r.8,
                                         disabledReason: r.9, createdAt: r.10))
        }
        return found
    }

    /// Seals the secrets stored before they were sealed (run by `serve` at start); returns how
    /// many endpoints it sealed.
    public func sealStoredSecrets() async throws -> Int {
        var sealed = 0
        let rows = try await client.rows("""
            SELECT id, secret, previous_secret FROM webhook_endpoints
            WHERE secret NOT LIKE 'sealed:%' OR previous_secret NOT LIKE 'sealed:%'
            """, logger: logger)
        for try await (id, secret, previous) in rows.decode((UUID, String, String?).self) {
            let newSecret = sealer.isSealed(secret) ? secret : try sealer.seal(secret)
            let newPrevious = try previous.map { sealer.isSealed($0) ? $0 : try sealer.seal($0) }
            try await client.run("""
                UPDATE webhook_endpoints SET secret = \(newSecret), previous_secret = \(newPrevious)
                WHERE id = \(id) AND secret = \(secret) AND previous_secret IS NOT DISTINCT FROM \(previous)
                """, logger: logger)
            sealed += 1
        }
        return sealed
    }

    public func reminders(of userId: UUID) async throws -> WebhookEndpoint? {
        try await endpoints("""
            SELECT id, user_id, purpose, url, events, secret, previous_secret, previous_until, disabled_at, disabled_reason, created_at
            FROM webhook_endpoints WHERE user_id = \(userId) AND purpose = 'reminders'
            """).first
    }

    /// Every user's active reminders endpoint, by user.
    public func activeReminderEndpoints(of users: [UUID]) async throws -> [UUID: UUID] {
        var found: [UUID: UUID] = [:]
        for try await (user, id) in try await client.rows("""
            SELECT user_id, id FROM webhook_endpoints WHERE user_id = ANY(\(users)) AND purpose = 'reminders' AND disabled_at IS NULL
            """, logger: logger).decode((UUID, UUID).self) { found[user] = id }
        return found
    }

    /// Every enabled event webhook of these users that wants `event`, by user.
    public func subscribers(to event: String, among users: [UUID]) async throws -> [UUID: [UUID]] {
        var found: [UUID: [UUID]] = [:]
        for try await (user, id) in try await client.rows("""
            SELECT user_id, id FROM webhook_endpoints
            WHERE user_id = ANY(\(users)) AND purpose = 'events' AND disabled_at IS NULL AND \(event) = ANY(events)
            """, logger: logger).decode((UUID, UUID).self) { found[user, default: []].append(id) }
        return found
    }

    /// Sets the reminders webhook. A new secret replaces the old, which stays valid a day; the
    /// same URL saved again re-enables a disabled endpoint.
    public func setReminders(_ userId: UUID, url: String, newSecret: String?, now: Date) async throws {
        let secret = try newSecret.map(sealer.seal) ?? ""
        try await client.rows("""
            INSERT INTO webhook_endpoints (id, user_id, purpose, url, secret, created_at)
            VALUES (\(UUID()), \(userId), 'reminders', \(url), \(secret), \(now))
            ON CONFLICT (user_id) WHERE purpose = 'reminders' DO UPDATE SET
              url = EXCLUDED.url,
              previous_secret = CASE WHEN \(secret) = '' THEN webhook_endpoints.previous_secret ELSE webhook_endpoints.secret END,
              previous_until = CASE WHEN \(secret) = '' THEN webhook_endpoints.previous_until ELSE \(now.addingTimeInterval(86_400)) END,
              secret = CASE WHEN \(secret) = '' THEN webhook_endpoints.secret ELSE \(secret) END,
              disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
            """, logger: logger)
    }

    public func removeReminders(_ userId: UUID) async throws {
        for try await id in try await client.rows("""
            DELETE FROM webhook_endpoints WHERE user_id = \(userId) AND purpose = 'reminders' RETURNING id
            """, logger: logger).decode(UUID.self) {
            try await ReminderOutboxStore.release(id, reason: "webhook removed", on: client, logger: logger)
        }
    }

    // MARK: Event webhooks

    /// Makes an event webhook with id `id` (derived from the request's Idempotency-Key when it
    /// has one), unless the user already has `maximum`: the count and the insert are one
    /// transaction under the user's lock, so concurrent creations cannot pass the limit together.
    /// A retry of a creation that was stored finds its webhook and returns it, with the secret it
    /// was stored with: nil when the user is at the limit.
    public func createEvents(_ userId: UUID, id: UUID, url: String, events: [String], secret: String, maximum: Int, now: Date)
        async throws -> WebhookEndpoint?
    {
        let sealed = try sealer.seal(secret)
        return try await client.transaction(logger: logger) { connection in
            let lock = AdvisoryLock.webhooks(of: userId)
            try await connection.run("SELECT pg_advisory_xact_lock(\(lock.0), \(lock.1))", logger: logger)
            if let stored = try await endpoints("""
                SELECT id, user_id, purpose, url, events, secret, previous_secret, previous_until, disabled_at, disabled_reason, created_at
                FROM webhook_endpoints WHERE user_id = \(userId) AND id = \(id) AND purpose = 'events'
                """, on: connection).first {
                return stored
            }
            var count = 0
            for try await n in try await connection.rows("""
                SELECT count(*)::int FROM webhook_endpoints WHERE user_id = \(userId) AND purpose = 'events'
                """, logger: logger).decode(Int32.self) { count = Int(n) }
            guard count < maximum else { return nil }
            try await connection.run("""
                INSERT INTO webhook_endpoints (id, user_id, purpose, url, events, secret, created_at)
                VALUES (\(id), \(userId), 'events', \(url), \(events), \(sealed), \(now))
                """, logger: logger)
            return WebhookEndpoint(id: id, userId: userId, purpose: "events", url: url, events: events, secret: secret, previousSecret: nil,
                                   previousUntil: nil, disabledAt: nil, disabledReason: nil, createdAt: now)
        }
    }

    public func eventCount(of userId: UUID) async throws -> Int {
        for try await count in try await client.rows("""
            SELECT count(*)::int FROM webhook_endpoints WHERE user_id = \(userId) AND purpose = 'events'
            """, logger: logger).decode(Int32.self) { return Int(count) }
        return 0
    }

    public func events(of userId: UUID) async throws -> [WebhookEndpoint] {
        try await endpoints("""
            SELECT id, user_id, purpose, url, events, secret, previous_secret, previous_until, disabled_at, disabled_reason, created_at
            FROM webhook_endpoints WHERE user_id = \(userId) AND purpose = 'events' ORDER BY created_at, id
            """)
    }

    public func event(_ userId: UUID, _ id: UUID) async throws -> WebhookEndpoint? {
        try await endpoints("""
            SELECT id, user_id, purpose, url, events, secret, previous_secret, previous_until, disabled_at, disabled_reason, created_at
            FROM webhook_endpoints WHERE user_id = \(userId) AND id = \(id) AND purpose = 'events'
            """).first
    }

    public func deleteEvent(_ userId: UUID, _ id: UUID) async throws -> Bool {
        var deleted = false
        for try await _ in try await client.rows("""
            DELETE FROM webhook_endpoints WHERE user_id = \(userId) AND id = \(id) AND purpose = 'events' RETURNING id
            """, logger: logger).decode(UUID.self) { deleted = true }
        // What it has not yet received is dropped (failed, with the reason).
        if deleted { try await ReminderOutboxStore.release(id, reason: "webhook removed", on: client, logger: logger) }
        return deleted
    }
}
