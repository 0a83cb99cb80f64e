import Domain
import Foundation

/// A row of the outbox as the API shows it.
public struct OutboxItem: Sendable {
    public var id: UUID
    public var key: String
    public var channel: String
    public var kind: String
    public var subject: String
    public var dueAt: Date
    public var dueLocal: String
    public var status: ReminderStatus
    public var title: String
    public var body: String
    /// The structured data, as stored JSON.
    public var data: String
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?

    public init(id: UUID, key: String, channel: String, kind: String, subject: String, dueAt: Date, dueLocal: String, status: ReminderStatus,
                title: String, body: String, data: String, attempts: Int, lastStatus: Int?, lastError: String?) {
        self.id = id
        self.key = key
        self.channel = channel
        self.kind = kind
        self.subject = subject
        self.dueAt = dueAt
        self.dueLocal = dueLocal
        self.status = status
        self.title = title
        self.body = body
        self.data = data
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}
