import Domain
import EventStore
import Foundation
import Logging
import Projections

/// Loads what a user has on and hands it to `ReminderPlanner`: the same reads as the habits,
/// tasks and savings routes, so a reminder never disagrees with the screen it points to.
public struct ReminderPlanning: Sendable {
    let users: AccountsReadModel
    let habits: HabitService
    let tasks: TaskService
    let savings: SavingsService
    let clock: any WallClock

    /// The server's own services (`Services`), so planning reads what the routes wrote.
    init(users: AccountsReadModel, habits: HabitService, tasks: TaskService, savings: SavingsService, clock: any WallClock) {
        self.users = users
        self.habits = habits
        self.tasks = tasks
        self.savings = savings
        self.clock = clock
    }

    public func user(email: String) async throws -> ReminderUser {
        guard let id = try await users.userId(email: Email.normalize(email)), let user = try await users.reminderUser(id) else {
            throw ResourceError.notFound
        }
        return user
    }

    /// The users who may have something due in (`from`, `to`], found by index on their times
    /// of day in each zone in use (`ReminderWindow`): a superset, which `due` narrows exactly. A
    /// minute with nothing due reads no user at all, whatever their number (issue 30).
    public func candidates(from: Date, to: Date) async throws -> [ReminderUser] {
        var ranges: [(zone: String, range: ReminderWindow.Range)] = []
        for name in try await users.zonesInUse() {
            // A zone the server does not know: every time of day (reading such a user then fails
            // the run as a corrupt row, as before: nothing is skipped silently).
            let found = TimeZone(identifier: name).map { ReminderWindow.ranges(from: from, to: to, in: $0) } ?? [.wholeDay]
            ranges += found.map { (name, $0) }
        }
        guard !ranges.isEmpty else { return [] }
        // No zone's date is more than a day behind UTC's, and `ReminderPlanner.dates` starts a day
        // early: a task due before this is not due in the window anywhere.
        let tasksFrom = LogicalDay.date(of: from, in: .gmt, dayStartHour: 0).adding(days: -2)
        return try await users.reminderCandidates(ranges, movedSince: from.addingTimeInterval(-86_400), until: to, tasksFrom: tasksFrom)
    }

    /// Of these users, those with something that could fall due in (`from`, `to`]: the rest are
    /// not read at all.
    /// `overdue`: users whose event webhooks want `savings.payment_overdue` (due at their morning time).
    public func due(_ candidates: [ReminderUser], overdue: Set<UUID> = [], from: Date, to: Date) async throws -> [ReminderUser] {
        let earliest = candidates.compactMap { ReminderPlanner.dates($0, from: from, to: to).first }.min()
        guard let earliest else { return [] }
        let times = try await users.itemTimes(candidates.map(\.userId), from: earliest)
        return candidates.filter { user in
            var checked = user
            if overdue.contains(user.userId) { checked.kinds.insert(.savingsPaymentDue) }
            return ReminderPlanner.mayFire(checked, times: times[user.userId] ?? [], from: from, to: to)
        }
    }

    /// Every reminder due in (`from`, `to`] for this user, with facts as they stand now.
    public func plan(_ user: ReminderUser, from: Date, to: Date) async throws -> [PlannedReminder] {
        try await plan([user], from: from, to: to).reminders
    }

    /// The reminders of (`from`, `to`] for a batch of users, and the `savings.payment_overdue`
    /// events of those in `overdue`: each area read once for the whole batch (a few statements
    /// for 500 users, not a few per user), then each user planned by `ReminderPlanner`.
    public func plan(_ batch: [ReminderUser], from: Date, to: Date, overdue: Set<UUID> = []) async throws -> (reminders: [PlannedReminder], events: [PlannedEvent]) {
        let dates = Dictionary(batch.map { ($0.userId, ReminderPlanner.dates($0, from: from, to: to)) }) { first, _ in first }
        let users = batch.filter { dates[$0.userId]?.isEmpty == false }
        guard !users.isEmpty else { return ([], []) }
        let calendars = try await self.users.calendars(users.map(\.userId))
        func wanting(_ kinds: Set<ReminderKind>, orOverdue: Bool = false) -> [ReminderUser] {
            users.filter { !$0.kinds.isDisjoint(with: kinds) || (orOverdue && overdue.contains($0.userId)) }
        }
        var habitDays: [UUID: (calendar: UserCalendar, dates: [LocalDate])] = [:]
        for user in wanting([.morningDigest, .eveningNudge, .habit]) {
            if let calendar = calendars[user.userId], let days = dates[user.userId] { habitDays[user.userId] = (calendar, days) }
        }
        let taskOwners = wanting([.morningDigest, .taskDue]).map(\.userId)
        let through = taskOwners.compactMap { dates[$0]?.last }.max() ?? SavingsSchedule.firstMonth.firstDay
        var savingsDays: [UUID: LocalDate] = [:]
        for user in wanting([.savingsPaymentDue, .sharedSavingsPaymentDue], orOverdue: true) {
            if let calendar = calendars[user.userId] { savingsDays[user.userId] = calendar.today(at: to) }
        }
        async let habitsRead = habitDays.isEmpty ? [:] : habits.reminderDays(habitDays)
        async let tasksRead = taskOwners.isEmpty ? [:] : tasks.openDue(owners: taskOwners, through: through)
        async let goalsRead = savingsDays.isEmpty ? [:] : savings.goals(asOf: savingsDays)
        let (habitsByUser, tasksByUser, goalsByUser) = try await (habitsRead, tasksRead, goalsRead)

        var reminders: [PlannedReminder] = [], events: [PlannedEvent] = []
        for user in users {
            guard let days = dates[user.userId], let first = days.first, let last = days.last else { continue }
            var agenda = ReminderAgenda()
            agenda.habits = habitsByUser[user.userId] ?? [:]
            agenda.tasks = (tasksByUser[user.userId] ?? []).filter { $0.dueDate <= last }
            // Goals the user owns, and shared ones (the planner keeps those only for a member who asked).
            let lead = ReminderPlanner.paymentLeadDays.max() ?? 0
            for view in goalsByUser[user.userId] ?? [] {
                for occurrence in view.progress.occurrences(from: first.adding(days: -1), through: last.adding(days: lead)) where occurrence.remaining > 0 {
                    agenda.payments.append(.init(
                        goalId: view.goal.id, goalName: view.goal.name, dueDate: occurrence.dueDate,
                        remaining: Money(minorUnits: occurrence.remaining, currency: view.goal.currency), owned: view.role == .owner))
                }
            }
            reminders += ReminderPlanner.plan(user, agenda, from: from, to: to)
            if overdue.contains(user.userId) { events += ReminderPlanner.overdue(user, agenda, from: from, to: to) }
        }
        return (reminders, events)
    }
}
