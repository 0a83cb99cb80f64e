import Domain
import Foundation
import Projections

/// The body of a push, `{type, timestamp, data}` as Standard Webhooks shapes it. Built from the
/// row's stable fields only, so every retry sends the same bytes.
enum WebhookPayload {
    static func json(_ item: OutboxItem) -> String {
        var json = JSONText()
        json.open()
        json.field("type", item.channel == "reminder" ? "reminder.\(item.kind)" : item.kind)
        json.field("timestamp", item.dueAt.formatted(.iso8601))
        // A domain event's data is its own; a reminder (pushed as a reminder or as an event) is the reminder.
        if item.channel == "event", !item.kind.hasPrefix("reminder.") {
            json.key("data")
            json.raw(item.data)
            json.close()
            return json.text
        }
        json.key("data")
        json.open()
        json.field("id", item.id.uuidString.lowercased())
        json.field("key", item.key)
        json.field("kind", item.kind.hasPrefix("reminder.") ? String(item.kind.dropFirst("reminder.".count)) : item.kind)
        json.field("subject", item.subject)
        json.field("due_at", item.dueAt.formatted(.iso8601))
        json.field("due_local", item.dueLocal)
        json.field("title", item.title)
        json.field("body", item.body)
        json.key("data")
        json.raw(item.data)
        json.close()
        json.close()
        return json.text
    }
}
