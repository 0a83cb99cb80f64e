import Foundation

/// A reminder the planner made: who, what, when, and its text in the user's language.
/// `key` is deterministic (user, kind, subject, local due date-time): the outbox keeps one row
/// per key, so planning the same window twice never makes a second copy.
public struct PlannedReminder: Sendable, Equatable {
    public var userId: UUID
    public var kind: ReminderKind
    /// What it is about: `digest`, `nudge`, a task, a habit, or a goal's occurrence.
    public var subject: String
    public var dueLocal: String
    public var dueAt: Date
    public var title: String
    public var body: String
    public var data: [String: ReminderValue]

    public var key: String { "\(userId.uuidString.lowercased())/\(kind.rawValue)/\(subject)/\(dueLocal)" }

    public init(userId: UUID, kind: ReminderKind, subject: String, dueLocal: String, dueAt: Date, title: String, body: String, data: [String: ReminderValue]) {
        self.userId = userId
        self.kind = kind
        self.subject = subject
        self.dueLocal = dueLocal
        self.dueAt = dueAt
        self.title = title
        self.body = body
        self.data = data
    }
}

/// A domain event the job produces on a schedule (an occurrence becoming overdue), for the event
/// webhooks that asked for it.
public struct PlannedEvent: Sendable, Equatable {
    public var userId: UUID
    public var name: String
    public var subject: String
    public var dueLocal: String
    public var dueAt: Date
    public var data: [String: ReminderValue]

    public init(userId: UUID, name: String, subject: String, dueLocal: String, dueAt: Date, data: [String: ReminderValue]) {
        self.userId = userId
        self.name = name
        self.subject = subject
        self.dueLocal = dueLocal
        self.dueAt = dueAt
        self.data = data
    }
}

/// A value in a reminder's structured data: ids, dates and amounts as strings, lists of ids.
public enum ReminderValue: Sendable, Equatable, Codable {
    case text(String)
    case list([String])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let list = try? container.decode([String].self) { self = .list(list) } else { self = .text(try container.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .list(let list): try container.encode(list)
        }
    }
}

/// Where a reminder stands in the outbox.
public enum ReminderStatus: String, Sendable, Codable, CaseIterable {
    /// Planned; waiting to be pushed, or to be pulled and acknowledged.
    case pending
    case delivered
    /// Every push attempt failed; still there to pull.
    case failed
    /// Planned for a window the job missed, superseded by a later reminder of the same subject.
    case skipped
}
