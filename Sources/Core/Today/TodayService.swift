import Domain
import EventStore
import Foundation
import Logging
import Projections
import Synchronization

/// What a home screen shows, in one call, from the same services as the detailed routes:
/// `/habits?date=`, `/tasks?filter=today`, `/savings/overview`, `/finance/summary`,
/// `/health/recovery` and `/reminders`.
public struct TodayView: Sendable {
    public var date: LocalDate
    public var habits: [HabitView]
    public var tasks: [TaskView]
    /// Unpaid occurrences due from the date through the next five days.
    public var dueSoon: [(SavingsGoalView, SavingsOccurrence)]
    public var overdue: [(SavingsGoalView, SavingsOccurrence)]
    /// The date's month.
    public var finance: FinanceSummary
    /// Nil when the user has no health data for the date.
    public var recovery: RecoveryScore?
    public var reminders: [OutboxItem]
    /// The user's own language, read with their calendar: the route needs no second read.
    public var userLanguage: Language

    public init(date: LocalDate, habits: [HabitView], tasks: [TaskView], dueSoon: [(SavingsGoalView, SavingsOccurrence)],
                overdue: [(SavingsGoalView, SavingsOccurrence)], finance: FinanceSummary, recovery: RecoveryScore?, reminders: [OutboxItem],
                userLanguage: Language) {
        self.date = date
        self.habits = habits
        self.tasks = tasks
        self.dueSoon = dueSoon
        self.overdue = overdue
        self.finance = finance
        self.recovery = recovery
        self.reminders = reminders
        self.userLanguage = userLanguage
    }
}

public struct TodayService: Sendable {
    /// Payments due within this many days count as due soon (the payment reminders' lead).
    public static let dueSoonDays = 5
    let habits: HabitService
    let tasks: TaskService
    let savings: SavingsService
    let finance: FinanceService
    let health: HealthService
    let reminders: ReminderService
    let users: AccountsReadModel
    let clock: any WallClock
    /// Each user's settings as the last Today read them: the parts start from these while the
    /// settings are read again, and are read once more only when the settings changed.
    let seen = SettingsSeen()

    /// The server's own services (`Services`): Today reads what the routes wrote, through their caches.
    init(habits: HabitService, tasks: TaskService, savings: SavingsService, finance: FinanceService, health: HealthService,
         reminders: ReminderService, users: AccountsReadModel, clock: any WallClock) {
        self.habits = habits
        self.tasks = tasks
        self.savings = savings
        self.finance = finance
        self.health = health
        self.reminders = reminders
        self.users = users
        self.clock = clock
    }

    public func today(_ owner: UUID, date requested: LocalDate?) async throws -> TodayView {
        // The user's calendar, currency and language are read once here and handed to every part.
        // With the settings of the user's last Today, the parts start at once beside that read (a
        // round trip fewer on the way); what the read answers decides, so a changed zone or
        // language reads the parts again with it.
        guard let guess = seen[owner] else {
            guard let settings = try await users.settings(owner) else { throw ResourceError.notFound }
            seen[owner] = settings
            return try await parts(owner, date: requested, settings: settings)
        }
        async let fresh = users.settings(owner)
        let early: Result<TodayView, any Error>
        do { early = .success(try await parts(owner, date: requested, settings: guess)) } catch { early = .failure(error) }
        guard let settings = try await fresh else {
            seen[owner] = nil
            throw ResourceError.notFound
        }
        seen[owner] = settings
        guard settings == guess else { return try await parts(owner, date: requested, settings: settings) }
        return try early.get()
    }

    func parts(_ owner: UUID, date requested: LocalDate?, settings: UserSettings) async throws -> TodayView {
        let date = requested ?? settings.calendar.today(at: clock.now())
        // Every part at once; the habits list is awaited first, so a date it refuses (after today,
        // outside the window) is what the caller hears.
        async let habitList = habits.list(owner, on: date, calendar: settings.calendar)
        async let taskViews = tasks.list(owner, filter: .today, calendar: settings.calendar, after: nil, limit: 100)
        async let overview = savings.overview(owner, asOf: date)
        async let summary = finance.summary(owner, from: date.localMonth.firstDay, to: date.localMonth.lastDay)
        async let scores = health.recoveryScores(owner, from: date, to: date)
        async let pending = reminders.list(owner, statuses: [.pending], before: nil, limit: 20)
        let habitViews = try await habitList
        let savingsOverview = try await overview
        let horizon = date.adding(days: Self.dueSoonDays)
        let dueSoon = savingsOverview.goals.flatMap { view in
            view.progress.occurrences(from: date, through: horizon).filter { $0.status != .paid }.map { (view, $0) }
        }.sorted { $0.1.dueDate < $1.1.dueDate }
        return TodayView(
            date: date, habits: habitViews, tasks: try await taskViews, dueSoon: dueSoon, overdue: savingsOverview.overdues,
            finance: try await summary, recovery: Self.withData(try await scores.first), reminders: try await pending,
            userLanguage: settings.language)
    }

    /// A score only when the date has health data to score from: an unscorable date with no
    /// component available is no health part at all.
    static func withData(_ score: RecoveryScore?) -> RecoveryScore? {
        guard let score, score.status != .unscorable || score.components.contains(where: \.available) else { return nil }
        return score
    }
}

/// Settings by user, as Today last read them (at most 10,000 users; emptied past that).
final class SettingsSeen: Sendable {
    private let byUser = Mutex<[UUID: UserSettings]>([:])

    subscript(user: UUID) -> UserSettings? {
        get { byUser.withLock { $0[user] } }
        set {
            byUser.withLock { all in
                if all.count >= 10_000 { all.removeAll(keepingCapacity: true) }
                all[user] = newValue
            }
        }
    }
}
