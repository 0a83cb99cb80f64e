import Domain
import EventStore
import Logging
import Projections

/// Every service of the server, built once (the composition root): the areas' routes, the phone
/// apps' adapters, Today, the reminder job and the commands all hold these same instances. So
/// commands for one stream queue on one `StreamQueue` whichever route they came by, and a cache
/// (the habits' facts, the savings goals) sees every route's changes.
public struct Services: Sendable {
    public let habits: HabitService
    public let tasks: TaskService
    public let finance: FinanceService
    public let savings: SavingsService
    public let health: HealthService
    public let reminders: ReminderService
    public let webhooks: EventWebhookService
    public let today: TodayService
    public let planning: ReminderPlanning
    public let exports: ExportService

    /// `readWait`: how long a health read asked for `?min_position=` waits before 202.
    /// `allowPrivateWebhooks`: `LIFELOG_WEBHOOK_ALLOW_PRIVATE`, for the webhook services.
    public init(store: PostgresEventStore, clock: any WallClock, sealer: SecretSealer, logger: Logger,
                readWait: Duration = .seconds(3), allowPrivateWebhooks: Bool = false) {
        let basis = ServiceBasis(store: store, clock: clock, logger: logger), users = basis.users
        habits = HabitService(basis, cache: HabitFactsCache())
        tasks = TaskService(basis)
        finance = FinanceService(basis)
        savings = SavingsService(basis)
        health = HealthService(basis, readWait: readWait)
        reminders = ReminderService(client: store.client, clock: clock, allowPrivateWebhooks: allowPrivateWebhooks, sealer: sealer, logger: logger)
        webhooks = EventWebhookService(client: store.client, clock: clock, allowPrivateWebhooks: allowPrivateWebhooks, sealer: sealer, logger: logger)
        today = TodayService(habits: habits, tasks: tasks, savings: savings, finance: finance, health: health, reminders: reminders,
                             users: users, clock: clock)
        planning = ReminderPlanning(users: users, habits: habits, tasks: tasks, savings: savings, clock: clock)
        exports = ExportService(store: ExportStore(client: store.client, logger: logger), clock: clock)
    }
}
