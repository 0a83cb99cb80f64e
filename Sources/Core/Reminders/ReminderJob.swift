import AsyncHTTPClient
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections
import ServiceLifecycle

/// The reminder job: plans the window since the last run into the outbox, then pushes what is
/// due. Any number may run at once: one plans at a time (a transaction-scoped advisory lock),
/// and every one delivers, sharing rows through `FOR UPDATE SKIP LOCKED`.
public struct ReminderJob: Sendable {
    public struct RunReport: Sendable, Equatable, CustomStringConvertible {
        /// False when another instance held the planning lock (this run only delivered).
        public var planned: Bool = false
        public var from: Date?
        public var to: Date?
        public var queued = 0
        public var skipped = 0
        public var delivered = 0
        public var failedAttempts = 0

        public var description: String {
            let plan = planned ? "planned \(queued) (skipped \(skipped))" : "planning held by another run"
            return "\(plan); delivered \(delivered), failed attempts \(failedAttempts)"
        }
    }

    let client: PostgresClient
    let planning: ReminderPlanning
    let outbox: ReminderOutboxStore
    let endpoints: WebhookEndpointStore
    let sender: WebhookSender
    let clock: any WallClock
    let logger: Logger
    /// Users planned at once.
    var concurrency = 8

    /// `planning`: the server's (`Services.planning`), so the job reads through the routes' caches.
    public init(store: PostgresEventStore, http: HTTPClient, planning: ReminderPlanning, allowPrivateWebhooks: Bool, sealer: SecretSealer,
                clock: any WallClock, logger: Logger) {
        client = store.client
        self.planning = planning
        outbox = ReminderOutboxStore(client: store.client, sealer: sealer, logger: logger)
        endpoints = WebhookEndpointStore(client: store.client, sealer: sealer, logger: logger)
        sender = WebhookSender(http: http, allowPrivate: allowPrivateWebhooks)
        self.clock = clock
        self.logger = logger
    }

    /// One run: plan, then deliver everything due (retries whose wait has passed included).
    public func run() async throws -> RunReport {
        var report = try await plan()
        let (delivered, failed) = try await deliver()
        report.delivered = delivered
        report.failedAttempts = failed
        return report
    }

    /// Plans (checkpoint, now] for every user with reminders on, in one transaction with the
    /// checkpoint's move: a run that dies plans nothing, and the next plans the same window
    /// (the outbox keys make that harmless either way). A new install starts from its first run.
    public func plan() async throws -> RunReport {
        try await client.transaction(logger: logger) { connection in
            var report = RunReport()
            guard try await outbox.takePlanningLock(on: connection) else { return report }
            report.planned = true
            let now = clock.now()
            guard let from = try await outbox.plannedUntil(on: connection) else {
                try await outbox.setPlannedUntil(now, on: connection)
                report.to = now
                return report
            }
            report.from = from
            report.to = now
            guard from < now else { return report }
            let endpoints = try await endpoints.activeReminderEndpoints()
            let overdue = try await self.endpoints.subscribers(to: WebhookEvents.paymentOverdue)
            var after: UUID?
            while true {
                let batch = try await planning.users(after: after, limit: 500)
                guard let last = batch.last else { break }
                after = last.userId
                let users = try await planning.due(batch, overdue: Set(overdue.keys), from: from, to: now)
                let (planned, events) = try await withThrowingTaskGroup(of: ([PlannedReminder], [PlannedEvent]).self) { group in
                    var all: [PlannedReminder] = [], events: [PlannedEvent] = []
                    var next = users.makeIterator()
                    func add(_ user: ReminderUser) {
                        let wantsOverdue = overdue[user.userId] != nil
                        group.addTask { try await planning.plan(user, from: from, to: now, overdueEvents: wantsOverdue) }
                    }
                    for _ in 0..<concurrency {
                        guard let user = next.next() else { break }
                        add(user)
                    }
                    while let (some, more) = try await group.next() {
                        all += some
                        events += more
                        if let user = next.next() { add(user) }
                    }
                    return (all, events)
                }
                try await outbox.insert(events, subscribers: overdue, now: now, on: connection)
                let (send, skipped) = ReminderPlanner.collapse(planned)
                report.queued += try await outbox.insert(send, status: .pending, endpoints: endpoints, now: now, on: connection)
                try await outbox.copyToEventWebhooks(send.map(\.key), on: connection)
                report.skipped += try await outbox.insert(skipped, status: .skipped, endpoints: endpoints, now: now, on: connection)
            }
            try await outbox.setPlannedUntil(now, on: connection)
            // Pushes due at once (an overdue payment) go out now, not at the next minute.
            if report.queued > 0 { try await outbox.notifyDue(on: connection) }
            return report
        }
    }

    /// When the next push is due; nil when none waits.
    public func nextAttempt() async throws -> Date? { try await outbox.nextAttempt() }

    /// Pushes every due delivery, 64 at a time; returns (delivered, failed attempts).
    public func deliver() async throws -> (Int, Int) {
        var delivered = 0, failed = 0
        while true {
            let now = clock.now()
            let batch = try await outbox.claim(limit: 64, now: now, lease: 120)
            if batch.isEmpty { break }
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for claimed in batch {
                    group.addTask { try await push(claimed) }
                }
                for try await ok in group { if ok { delivered += 1 } else { failed += 1 } }
            }
        }
        return (delivered, failed)
    }

    func push(_ claimed: ReminderOutboxStore.Claimed) async throws -> Bool {
        let now = clock.now()
        let body = WebhookPayload.json(claimed.item)
        let outcome = await sender.send(id: claimed.item.key, body: body, to: claimed.endpoint.url,
                                        secrets: claimed.endpoint.signingSecrets(at: now), at: now)
        switch outcome {
        case .delivered(let status):
            try await outbox.delivered(claimed, status: status, now: clock.now())
            return true
        case .failed(let status, let error, let retryAfter, let gone):
            let delay = gone ? nil : WebhookRules.retryDelay(afterAttempt: claimed.item.attempts, jitter: Double.random(in: 0..<1), retryAfter: retryAfter)
            try await outbox.attemptFailed(claimed, status: status, error: error, retryAt: delay.map { now.addingTimeInterval($0) }, gone: gone, now: now)
            logger.notice("webhook attempt failed", metadata: ["key": "\(claimed.item.key)", "attempt": "\(claimed.item.attempts)", "error": "\(error)"])
            return false
        }
    }
}

/// The job every minute, for `lifelog serve` and `lifelog reminders daemon`. A failed run is
/// logged and tried again a minute later.
public struct ReminderDaemon: Service {
    let job: ReminderJob
    let interval: Duration
    let logger: Logger

    public init(job: ReminderJob, interval: Duration = .seconds(60), logger: Logger) {
        self.job = job
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                let report = try await job.run()
                if report.queued + report.delivered + report.failedAttempts > 0 { logger.info("reminders", metadata: ["run": "\(report)"]) }
            } catch {
                logger.warning("reminder run failed", metadata: ["error": "\(String(describing: error).prefix(300))"])
            }
            // The wait ends at once on SIGTERM, so shutdown never waits out the minute.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
