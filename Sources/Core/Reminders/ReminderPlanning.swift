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

    public func users(after: UUID?, limit: Int) async throws -> [ReminderUser] {
        try await users.reminderUsers(after: after, limit: limit)
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
        try await plan(user, from: from, to: to, overdueEvents: false).reminders
    }

    /// The reminders, and with `overdueEvents` the `savings.payment_overdue` events, of (`from`, `to`].
    public func plan(_ user: ReminderUser, from: Date, to: Date, overdueEvents: Bool) async throws -> (reminders: [PlannedReminder], events: [PlannedEvent]) {
        let dates = ReminderPlanner.dates(user, from: from, to: to)
        guard let last = dates.last else { return ([], []) }
        var agenda = ReminderAgenda()
        if !user.kinds.isDisjoint(with: [.morningDigest, .eveningNudge, .habit]) {
            agenda.habits = try await habits.reminderDays(user.userId, dates)
        }
        if !user.kinds.isDisjoint(with: [.morningDigest, .taskDue]) {
            agenda.tasks = try await tasks.list(user.userId, filter: .open, after: nil, limit: 10_000).compactMap { task in
                guard let due = task.dueDate, due <= last else { return nil }
                return .init(id: task.id, title: task.title, dueDate: due, dueTime: task.dueTime)
            }
        }
        if !user.kinds.isDisjoint(with: [.savingsPaymentDue, .sharedSavingsPaymentDue]) || overdueEvents, let first = dates.first {
            // Goals the user owns, and shared ones (the planner keeps those only for a member who asked).
            let lead = ReminderPlanner.paymentLeadDays.max() ?? 0
            for view in try await savings.goals(user.userId, asOf: nil) {
                for occurrence in view.progress.occurrences(from: first.adding(days: -1), through: last.adding(days: lead)) where occurrence.remaining > 0 {
                    agenda.payments.append(.init(
                        goalId: view.goal.id, goalName: view.goal.name, dueDate: occurrence.dueDate,
                        remaining: Money(minorUnits: occurrence.remaining, currency: view.goal.currency), owned: view.role == .owner))
                }
            }
        }
        return (ReminderPlanner.plan(user, agenda, from: from, to: to), overdueEvents ? ReminderPlanner.overdue(user, agenda, from: from, to: to) : [])
    }
}
