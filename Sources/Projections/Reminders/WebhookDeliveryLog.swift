import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// One push to an event webhook, as its owner sees it in the dashboard: what was sent, how it
/// went, and the receiver's last answer. The payload and the signing secret stay out.
public struct WebhookDelivery: Sendable, Equatable {
    public var id: UUID
    public var event: String
    public var status: ReminderStatus
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?
    /// When it was due to go out: the event's time, or a reminder's due time.
    public var dueAt: Date
    /// The user's wall clock at `dueAt` (`YYYY-MM-DDTHH:MM`), as the outbox keeps it.
    public var dueLocal: String
    public var deliveredAt: Date?
}

/// The recent deliveries of one event webhook, read from the outbox that sends them.
public struct WebhookDeliveryLog: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Newest first (the outbox's index on the user and due time serves it); `endpoint` must be one of `userId`'s (the caller checks it exists).
    public func recent(_ userId: UUID, endpoint: UUID, limit: Int) async throws -> [WebhookDelivery] {
        var deliveries: [WebhookDelivery] = []
        for try await r in try await client.rows("""
            SELECT id, kind, status, attempts, last_status, last_error, due_at, delivered_at, due_local
            FROM reminder_outbox
            WHERE user_id = \(userId) AND endpoint_id = \(endpoint) AND channel = 'event'
            ORDER BY due_at DESC, id
            LIMIT \(limit)
            """, logger: logger).decode((UUID, String, String, Int32, Int32?, String?, Date, Date?, String).self) {
            guard let status = ReminderStatus(rawValue: r.2) else { throw CorruptData("delivery status", r.2) }
            deliveries.append(WebhookDelivery(id: r.0, event: r.1, status: status, attempts: Int(r.3), lastStatus: r.4.map(Int.init),
                                              lastError: r.5, dueAt: r.6, dueLocal: r.8, deliveredAt: r.7))
        }
        return deliveries
    }
}
