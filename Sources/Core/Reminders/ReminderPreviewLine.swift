import Domain
import Foundation

/// One line of `lifelog reminders preview`: `key`, `kind`, `subject`, `due_local` (the user's
/// wall clock, no offset), `due_at` (UTC), `title`, `body` and `data`.
public enum ReminderPreviewLine {
    public static func json(_ reminder: PlannedReminder) -> String {
        var json = JSONText()
        json.open()
        json.field("key", reminder.key)
        json.field("kind", reminder.kind.rawValue)
        json.field("subject", reminder.subject)
        json.field("due_local", reminder.dueLocal)
        json.field("due_at", reminder.dueAt.formatted(.iso8601))
        json.field("title", reminder.title)
        json.field("body", reminder.body)
        json.key("data")
        json.raw((try? EventCoding.encode(reminder.data)) ?? "{}")
        json.close()
        return json.text
    }
}
