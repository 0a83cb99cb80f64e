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
    /// Users planned together: each area is read once per batch.
    var batchSize = 500

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
            // Only the users who may have something due are read, and only their endpoints: a
            // minute with nothing due costs a few index probes (issue 30).
            let found = try await planning.candidates(from: from, to: now)
            let overdue = try await endpoints.subscribers(to: WebhookEvents.paymentOverdue, among: found.map(\.userId))
            let due = try await planning.due(found, overdue: Set(overdue.keys), from: from, to: now)
            for start in stride(from: 0, to: due.count, by: batchSize) {
                let batch = Array(due[start..<min(start + batchSize, due.count)])
                let (planned, events) = try await planning.plan(batch, from: from, to: now, overdue: Set(overdue.keys))
                try await outbox.insert(events, subscribers: overdue, now: now, on: connection)
                let (send, skipped) = ReminderPlanner.collapse(planned)
                let targets = try await endpoints.activeReminderEndpoints(of: batch.map(\.userId))
                report.queued += try await outbox.insert(send, status: .pending, endpoints: targets, now: now, on: connection)
                try await outbox.copyToEventWebhooks(send.map(\.key), on: connection)
                report.skipped += try await outbox.insert(skipped, status: .skipped, endpoints: targets, now: now, on: connection)
            }
            try await outbox.setPlannedUntil(now, on: connection)
            // Pushes due at once (an overdue payment) go out now, not at the next minute.
            if report.queued > 0 { try await outbox.notifyDue(on: connection) }
            return report
        }
    }

    /// When the next push is due; nil when none waits.
    public func nextAttempt() async throws -> Date? { try await outbox.nextAttempt() }

    /// Pushes every due delivery, returns (delivered, failed attempts). `lanes` lanes of up to
    /// `claimSize` POSTs are out at once, so one lane's bookkeeping overlaps another's POSTs;
    /// each half-window of answers is recorded in one statement (issue 30: three statements per
    /// push held the rate at a tenth of the bare POSTs'). Beyond the client's 64 connections to one host, a
    /// POST waits for one within its own time limit. A lane that fails does not stop the others
    /// mid-claim: the first error is thrown once every lane has finished.
    public func deliver(lanes: Int = 2, claimSize: Int = 128) async throws -> (Int, Int) {
        let results = await withTaskGroup(of: Result<(Int, Int), any Error>.self) { group in
            for _ in 0..<max(1, lanes) {
                group.addTask {
                    do { return .success(try await deliverLane(claimSize: claimSize)) } catch { return .failure(error) }
                }
            }
            var all: [Result<(Int, Int), any Error>] = []
            for await result in group { all.append(result) }
            return all
        }
        var total = (0, 0)
        for result in results {
            let (delivered, failed) = try result.get()
            total = (total.0 + delivered, total.1 + failed)
        }
        return total
    }

    /// Claims and pushes until nothing is due, up to `claimSize` POSTs out at once: when half
    /// of them have been answered, their answers are recorded and as many rows claimed again
    /// while the other half is still out, so the lane never stands idle at the end of a claim
    /// (issue 30). The claim and the records run in the lane's own task, never in a child that
    /// could be cancelled mid-read. While a claim has not filled the window and pushes are still
    /// out (a slow receiver's), the lane looks for newly due rows every second. When a statement
    /// fails, the lane claims nothing more, lets the POSTs already out finish and records them,
    /// then throws.
    func deliverLane(claimSize: Int) async throws -> (Int, Int) {
        let window = max(1, claimSize)
        let refill = max(1, window / 2)
        var delivered = 0, failed = 0
        var cursor: ReminderOutboxStore.ClaimCursor?
        var claims = 0
        var exhausted = false
        var firstError: (any Error)?
        await withTaskGroup(of: LaneEvent.self) { group in
            var inFlight = 0
            var looking = false
            var answered: [(ReminderOutboxStore.Claimed, WebhookSender.Outcome)] = []
            while true {
                if !exhausted, firstError == nil, window - inFlight >= refill {
                    do {
                        // Each lane goes on from its own last claim, so it does not walk again past
                        // every row claimed before. A row can fall due behind it meanwhile (an event
                        // webhook, due from -infinity; a lease that ran out): every 16th claim, and a
                        // claim that finds nothing ahead, start again at the head, so such a row
                        // waits a few claims, not the whole run.
                        let from = claims % 16 == 0 ? nil : cursor
                        claims += 1
                        let limit = window - inFlight
                        var batch = try await outbox.claim(limit: limit, now: clock.now(), lease: 120, after: from)
                        if batch.isEmpty, from != nil { batch = try await outbox.claim(limit: limit, now: clock.now(), lease: 120, after: nil) }
                        if let last = batch.last { cursor = last.cursor } else { exhausted = true }
                        for claimed in batch { group.addTask { .answered(claimed, await send(claimed)) } }
                        inFlight += batch.count
                    } catch {
                        firstError = error
                    }
                }
                // The last claim did not fill the window (nothing more was due), but a slow
                // receiver may hold a push for up to 20 s: look again every second meanwhile, so
                // what falls due now (another user's event webhook) does not wait for its answer.
                if firstError == nil, inFlight > 0, window - inFlight >= refill, !looking {
                    looking = true
                    group.addTask {
                        try? await Task.sleep(for: Self.lookAgain)
                        return .lookAgain
                    }
                }
                guard inFlight > 0, let next = await group.next() else { break }
                guard case .answered(let claimed, let outcome) = next else {
                    looking = false
                    exhausted = false
                    continue
                }
                inFlight -= 1
                answered.append((claimed, outcome))
                // Recorded when the lane claims again (half the window answered) and at its end.
                guard answered.count >= refill || inFlight == 0 else { continue }
                do {
                    let (ok, failures) = try await record(answered)
                    delivered += ok
                    failed += failures
                } catch {
                    if firstError == nil { firstError = error }
                }
                answered = []
            }
            // A look still waiting has nothing left to look for.
            group.cancelAll()
        }
        if let firstError { throw firstError }
        return (delivered, failed)
    }

    /// What a lane waits for: a push's answer, or the time to look for newly due rows.
    enum LaneEvent: Sendable {
        case answered(ReminderOutboxStore.Claimed, WebhookSender.Outcome)
        case lookAgain
    }

    /// How often a lane with nothing left to claim looks again while its last pushes are out.
    static let lookAgain: Duration = .seconds(1)

    /// One set of answers: the 2xx in one statement, each failure with its retry.
    func record(_ outcomes: [(ReminderOutboxStore.Claimed, WebhookSender.Outcome)]) async throws -> (delivered: Int, failed: Int) {
        let now = clock.now()
        var successes: [(ReminderOutboxStore.Claimed, Int)] = []
        for (claimed, outcome) in outcomes {
            guard case .delivered(let status) = outcome else { continue }
            successes.append((claimed, status))
        }
        try await outbox.delivered(successes, now: now)
        var failed = 0
        for (claimed, outcome) in outcomes {
            guard case .failed(let status, let error, let retryAfter, let gone) = outcome else { continue }
            let delay = gone ? nil : WebhookRules.retryDelay(afterAttempt: claimed.item.attempts, jitter: Double.random(in: 0..<1), retryAfter: retryAfter)
            try await outbox.attemptFailed(claimed, status: status, error: error, retryAt: delay.map { now.addingTimeInterval($0) }, gone: gone, now: now)
            logger.notice("webhook attempt failed", metadata: ["key": "\(claimed.item.key)", "attempt": "\(claimed.item.attempts)", "error": "\(error)"])
            failed += 1
        }
        return (successes.count, failed)
    }

    func send(_ claimed: ReminderOutboxStore.Claimed) async -> WebhookSender.Outcome {
        let now = clock.now()
        return await sender.send(id: claimed.item.key, body: WebhookPayload.json(claimed.item), to: claimed.endpoint.url,
                                 secrets: claimed.endpoint.signingSecrets(at: now), at: now)
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
