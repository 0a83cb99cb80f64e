/// A reminder's title and body in the user's language, from the label catalogue: the client
/// shows them verbatim.
public struct ReminderTexts: Sendable {
    public var language: Language

    public init(language: Language) {
        self.language = language
    }

    func digest(habits: Int, tasks: Int, overdue: Int) -> (title: String, body: String) {
        var parts: [String] = []
        if habits > 0 { parts.append(LabelFormat.fill("reminder.morning_digest.habits", language, ["count": "\(habits)"])) }
        if tasks > 0 { parts.append(LabelFormat.fill("reminder.morning_digest.tasks", language, ["count": "\(tasks)"])) }
        if overdue > 0 { parts.append(LabelFormat.fill("reminder.morning_digest.overdue", language, ["count": "\(overdue)"])) }
        return (LabelCatalogue.text("reminder.morning_digest.title", language), parts.joined(separator: " · "))
    }

    func nudge(_ names: [String]) -> (title: String, body: String) {
        (LabelCatalogue.text("reminder.evening_nudge.title", language),
         LabelFormat.fill("reminder.evening_nudge.body", language, ["names": names.joined(separator: ", ")]))
    }

    func task(_ title: String, time: LocalTime) -> (title: String, body: String) {
        (LabelFormat.fill("reminder.task_due.title", language, ["title": title]),
         LabelFormat.fill("reminder.task_due.body", language, ["time": time.description]))
    }

    func payment(_ payment: ReminderAgenda.Payment, daysAhead: Int) -> (title: String, body: String) {
        let values = ["goal": payment.goalName, "amount": "\(payment.remaining) \(payment.remaining.currency.code)",
                      "date": payment.dueDate.description, "days": LabelFormat.days(daysAhead, language)]
        let body = daysAhead == 0 ? "reminder.savings_payment_due.body_today" : "reminder.savings_payment_due.body_ahead"
        return (LabelFormat.fill("reminder.savings_payment_due.title", language, values), LabelFormat.fill(body, language, values))
    }

    func habit(_ name: String) -> (title: String, body: String) {
        (LabelFormat.fill("reminder.habit.title", language, ["name": name]), LabelFormat.fill("reminder.habit.body", language, ["name": name]))
    }
}
