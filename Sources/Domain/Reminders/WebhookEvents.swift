/// What an event webhook can subscribe to (`POST /webhooks`): domain events and reminders.
public enum WebhookEvents {
    public static let habitCompleted = "habit.completed"
    public static let taskCompleted = "task.completed"
    /// A date's recovery score, the first time it has one.
    public static let recoveryScored = "health.recovery_scored"
    /// A savings plan occurrence still unpaid the morning after its due date.
    public static let paymentOverdue = "savings.payment_overdue"
    /// Every reminder; `reminder.<kind>` for one kind.
    public static let allReminders = "reminder.*"
    public static let test = "webhook.test"

    public static var names: [String] {
        [habitCompleted, taskCompleted, recoveryScored, paymentOverdue, allReminders] + ReminderKind.allCases.map { "reminder.\($0.rawValue)" }
    }

    /// Whether a subscription's list takes an event.
    public static func matches(_ subscribed: [String], _ event: String) -> Bool {
        subscribed.contains(event) || (event.hasPrefix("reminder.") && subscribed.contains(allReminders))
    }

    /// The rule for a subscription's list: 1 to 20 known names.
    public static func errors(_ events: [String]) -> [FieldError] {
        if events.isEmpty || events.count > 20 { return [FieldError("events", "must list 1 to 20 events")] }
        let unknown = events.filter { !names.contains($0) }
        guard unknown.isEmpty else { return [FieldError("events", "each must be one of " + names.joined(separator: ", "))] }
        return []
    }
}
