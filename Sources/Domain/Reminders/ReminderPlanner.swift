import Foundation

/// Plans a user's reminders for a window of time (DESIGN §4, Reminders): pure, so the job,
/// `lifelog reminders preview` and the tests all plan the same way.
public enum ReminderPlanner {
    /// Payment reminders go out this many days before an occurrence's due date (and on it).
    public static let paymentLeadDays = [5, 1, 0]

    /// The local dates whose reminders could fall in (`from`, `to`], in any of the user's zones.
    public static func dates(_ user: ReminderUser, from: Date, to: Date) -> [LocalDate] {
        var low: LocalDate?, high: LocalDate?
        for entry in user.zones.entries {
            let first = LogicalDay.date(of: from, in: entry.zone, dayStartHour: 0).adding(days: -1)
            let last = LogicalDay.date(of: to, in: entry.zone, dayStartHour: 0).adding(days: 1)
            low = min(low ?? first, first)
            high = max(high ?? last, last)
        }
        guard let low, let high, low <= high else { return [] }
        return (0...low.days(until: high)).map { low.adding(days: $0) }
    }

    /// Whether anything of this user's could fall due in (`from`, `to`]: the morning or evening
    /// time (for the kinds that use them), or one of `times` (habit reminder times, task due
    /// times). The job plans only such users: in a one-minute window almost nobody's is.
    public static func mayFire(_ user: ReminderUser, times: [LocalTime], from: Date, to: Date) -> Bool {
        var candidates = times
        if !user.kinds.isDisjoint(with: [.morningDigest, .savingsPaymentDue, .sharedSavingsPaymentDue]) { candidates.append(user.morning) }
        if user.kinds.contains(.eveningNudge) { candidates.append(user.evening) }
        for date in dates(user, from: from, to: to) {
            for time in candidates {
                if let (instant, _) = user.zones.instant(date, time), instant > from, instant <= to { return true }
            }
        }
        return false
    }

    /// Every reminder due in (`from`, `to`], oldest first.
    public static func plan(_ user: ReminderUser, _ agenda: ReminderAgenda, from: Date, to: Date) -> [PlannedReminder] {
        var planned: [PlannedReminder] = []
        let text = ReminderTexts(language: user.language)
        for date in dates(user, from: from, to: to) {
            func make(_ kind: ReminderKind, _ subject: String, at time: LocalTime, _ words: (title: String, body: String), _ data: [String: ReminderValue]) {
                guard user.kinds.contains(kind), let (instant, zone) = user.zones.instant(date, time), instant > from, instant <= to else { return }
                var data = data
                data["date"] = .text(date.description)
                planned.append(PlannedReminder(
                    userId: user.userId, kind: kind, subject: subject, dueLocal: LocalDueTime.text(at: instant, in: zone), dueAt: instant,
                    title: words.title, body: words.body, data: data))
            }
            let open = (agenda.habits[date] ?? []).filter { !$0.completed }
            let dueToday = agenda.tasks.filter { $0.dueDate == date && $0.dueTime == nil }
            let overdue = agenda.tasks.filter { $0.dueDate < date }
            if !open.isEmpty || !dueToday.isEmpty || !overdue.isEmpty {
                make(.morningDigest, "digest", at: user.morning, text.digest(habits: open.count, tasks: dueToday.count, overdue: overdue.count), [
                    "habit_ids": .list(open.map { $0.id.uuidString.lowercased() }),
                    "task_ids": .list((dueToday + overdue).map { $0.id.uuidString.lowercased() }),
                ])
            }
            if !open.isEmpty {
                make(.eveningNudge, "nudge", at: user.evening, text.nudge(open.map(\.name)), ["habit_ids": .list(open.map { $0.id.uuidString.lowercased() })])
            }
            for task in agenda.tasks where task.dueDate == date {
                guard let time = task.dueTime else { continue }
                let id = task.id.uuidString.lowercased()
                make(.taskDue, id, at: time, text.task(task.title, time: time), ["task_id": .text(id), "due_date": .text(date.description), "due_time": .text(time.description)])
            }
            for payment in agenda.payments where payment.owned ? user.kinds.contains(.savingsPaymentDue) : user.kinds.contains(.sharedSavingsPaymentDue) {
                let lead = date.days(until: payment.dueDate)
                guard paymentLeadDays.contains(lead) else { continue }
                let goal = payment.goalId.uuidString.lowercased()
                make(payment.owned ? .savingsPaymentDue : .sharedSavingsPaymentDue, "\(goal)/\(payment.dueDate)", at: user.morning,
                     text.payment(payment, daysAhead: lead), [
                    "goal_id": .text(goal), "due_date": .text(payment.dueDate.description),
                    "amount": .text(payment.remaining.description), "currency": .text(payment.remaining.currency.code),
                ])
            }
            for habit in open {
                guard let time = habit.reminderTime else { continue }
                let id = habit.id.uuidString.lowercased()
                make(.habit, id, at: time, text.habit(habit.name), ["habit_id": .text(id)])
            }
        }
        return planned.sorted { ($0.dueAt, $0.key) < ($1.dueAt, $1.key) }
    }

    /// `savings.payment_overdue`: each unpaid occurrence, at the morning time of the day after
    /// its due date, when that falls in (`from`, `to`].
    public static func overdue(_ user: ReminderUser, _ agenda: ReminderAgenda, from: Date, to: Date) -> [PlannedEvent] {
        agenda.payments.compactMap { payment in
            guard payment.owned else { return nil }  // the owner's to pay, and so the owner's overdue
            let date = payment.dueDate.adding(days: 1)
            guard let (instant, zone) = user.zones.instant(date, user.morning), instant > from, instant <= to else { return nil }
            let goal = payment.goalId.uuidString.lowercased()
            return PlannedEvent(
                userId: user.userId, name: WebhookEvents.paymentOverdue, subject: "\(goal)/\(payment.dueDate)",
                dueLocal: LocalDueTime.text(at: instant, in: zone), dueAt: instant,
                data: ["goal_id": .text(goal), "goal_name": .text(payment.goalName), "due_date": .text(payment.dueDate.description),
                       "amount": .text(payment.remaining.description), "currency": .text(payment.remaining.currency.code)])
        }
    }

    /// After an outage the window holds several reminders of one user, kind and subject (three
    /// mornings' digests): only the latest is sent; the others are kept as `skipped`, so the
    /// record says what was not sent.
    public static func collapse(_ planned: [PlannedReminder]) -> (send: [PlannedReminder], skipped: [PlannedReminder]) {
        var latest: [String: PlannedReminder] = [:]
        for reminder in planned {
            // Per user: the job collapses many users' reminders at once, and every user's digest has the subject `digest`.
            let group = "\(reminder.userId)/\(reminder.kind.rawValue)/\(reminder.subject)"
            if let kept = latest[group], (kept.dueAt, kept.key) >= (reminder.dueAt, reminder.key) { continue }
            latest[group] = reminder
        }
        let keys = Set(latest.values.map(\.key))
        return (planned.filter { keys.contains($0.key) }, planned.filter { !keys.contains($0.key) })
    }
}
