import API
import ArgumentParser
import AsyncHTTPClient
import Core
import Domain
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import Projections
import Synchronization

/// Issue 14's reminder figures: planning a morning for many users (each with habits, tasks and
/// a savings plan) and pushing every planned reminder to a webhook receiver on loopback, each
/// beside a floor measured in the same run.
struct ReminderLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders", abstract: "Plan a morning for many users and push every reminder to a local webhook receiver.")
    @OptionGroup var options: Options
    @Option(help: "Users to seed.") var users = 10_000
    @Option(help: "Delivery lanes, as the job runs them.") var lanes = 2
    @Option(help: "POSTs a lane keeps out (it claims again at half), as the job takes them.") var claimSize = 128
    @Option(help: "POSTs in flight for the floor.") var floorWindow = 64
    @Option(help: "Every Nth user's receiver takes 2 s to answer (0: none), as a receiver that is slow or far away.") var slowEvery = 0
    @Option(help: "Push rounds, each followed by its floors (the same rows queued again between rounds); the ratios' median is the figure.") var rounds = 1

    /// The bench's clock, moved by hand.
    final class Clock: WallClock, Sendable {
        let instant: Mutex<Date>
        init(_ start: Date) { instant = Mutex(start) }
        func now() -> Date { instant.withLock { $0 } }
        func set(_ date: Date) { instant.withLock { $0 = date } }
    }

    /// Counts what arrives, and each webhook-id once.
    final class Receiver: Sendable {
        let ids = Mutex<(total: Int, unique: Set<String>)>((0, []))
        let port = Mutex<Int?>(nil)
    }

    func run() async throws {
        let logger = options.logger
        let url = try options.url()
        // 07:00 in Belgrade on 2026-06-01; the morning digests are due at 08:00.
        let clock = Clock(Date(timeIntervalSince1970: 1_780_290_000))
        let receiver = Receiver()
        let router = Router()
        // `/slow` answers after 2 s (`--slow-every`), `/hook` at once.
        for (path, delay) in [("hook", Duration.zero), ("slow", .seconds(2))] {
            router.post(RouterPath(path)) { request, _ -> Response in
                let id = HTTPField.Name("webhook-id").flatMap { request.headers[$0] } ?? ""
                if delay > .zero { try await Task.sleep(for: delay) }
                receiver.ids.withLock { $0.total += 1; $0.unique.insert(id) }
                return Response(status: .noContent)
            }
        }
        var quiet = Logger(label: "receiver")
        quiet.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in receiver.port.withLock { $0 = channel.localAddress?.port } }, logger: quiet)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            while receiver.port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            let hook = "http://127.0.0.1:\(receiver.port.withLock { $0 } ?? 0)/hook"
            // Seeding is not measured: its commits need not wait for the disk (the figures below do).
            var seeding = url.clientConfiguration(role: "lifelog_app", maximumConnections: 20)
            seeding.options.additionalStartupParameters.append(("synchronous_commit", "off"))
            try await PostgresClient.withRunning(seeding, logger: logger) { client in
                let store = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
                let services = Services(store: store, clock: clock, sealer: Self.sealer, logger: logger, allowPrivateWebhooks: true)
                try await seed(services, store: store, clock: clock, hook: hook, logger: logger)
            }
            // A server started after the seeding: its caches are cold, as after a restart.
            try await PostgresClient.withRunning(url.clientConfiguration(role: "lifelog_app", maximumConnections: 20), logger: logger) { client in
                let store = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
                let services = Services(store: store, clock: clock, sealer: Self.sealer, logger: logger, allowPrivateWebhooks: true)
                let http = WebhookSender.makeClient()
                let job = ReminderJob(store: store, http: http, planning: services.planning, allowPrivateWebhooks: true, sealer: Self.sealer,
                                      clock: clock, logger: logger)
                _ = try await job.plan()  // the checkpoint: 07:00
                clock.set(clock.now().addingTimeInterval(3_660))  // 08:01
                try await client.run("VACUUM (ANALYZE)", logger: logger)
                let started = ContinuousClock.now
                let report = try await job.plan()
                let planning = seconds(ContinuousClock.now - started)
                let floor = try await insertFloor(client, rows: report.queued, logger: logger)
                print(String(format: "plan a morning for %d users: %.1f s, %d reminders queued (target: 100,000 users ≤ 60 s, within 10× the floor); floor: the same number of outbox rows inserted in one statement %.2f s (%.1f×)",
                             users, planning, report.queued, floor, planning / max(floor, 0.001)))
                // Minutes with nothing due (08:01–08:06): what every other minute of the day costs.
                var empty: [Double] = []
                for _ in 0..<5 {
                    clock.set(clock.now().addingTimeInterval(60))
                    let started = ContinuousClock.now
                    let quiet = try await job.plan()
                    empty.append(seconds(ContinuousClock.now - started) * 1_000)
                    if quiet.queued != 0 { print("a quiet minute queued \(quiet.queued) reminders"); throw ExitCode.failure }
                }
                empty.sort()
                // What the quiet minute's candidates were, for the record: none should be read.
                let quietStarted = ContinuousClock.now
                let candidates = try await services.planning.candidates(from: clock.now().addingTimeInterval(-60), to: clock.now())
                print(String(format: "the last quiet minute's candidates: %d, found in %.1f ms", candidates.count, seconds(ContinuousClock.now - quietStarted) * 1_000))
                print(String(format: "plan a minute with nothing due, %d users: median %.1f ms, max %.1f ms of 5 (target ≤ 50 ms)", users, empty[2], empty[4]))

                // Each round: the push, then its floors at once, so that a ratio compares what the
                // machine gave within seconds (the bare POSTs' rate moves by half between minutes).
                var ratios: [(push: Double, sender: Double)] = []
                for round in 0..<max(1, rounds) {
                    if round > 0 { try await queueAgain(client, logger: logger) }
                    receiver.ids.withLock { $0 = (0, []) }
                    let pushStarted = ContinuousClock.now
                    let (delivered, failed) = try await job.deliver(lanes: lanes, claimSize: claimSize)
                    let pushing = seconds(ContinuousClock.now - pushStarted)
                    let (total, unique) = receiver.ids.withLock { ($0.total, $0.unique.count) }
                    let rate = Double(delivered) / max(pushing, 0.001)
                    let pushFloor = try await postFloor(http, hook: hook, count: delivered, window: floorWindow)
                    print(String(format: "push %d webhooks: %.1f s, %.0f/s (target ≥ 500/s), %d failed; received %d, distinct webhook-ids %d; floor: the same POSTs without the outbox %.0f/s",
                                 delivered, pushing, rate, failed, total, unique, pushFloor))
                    let sent = try await senderFloor(http, hook: hook, count: delivered, window: lanes * claimSize)
                    print(String(format: "the same pushes through the job's sender (payload, signature, target check), %d in flight, without the outbox: %.0f/s",
                                 lanes * claimSize, sent))
                    ratios.append((rate / max(pushFloor, 1), sent / max(pushFloor, 1)))
                }
                if ratios.count > 1 {
                    let pushes = ratios.map(\.push).sorted(), senders = ratios.map(\.sender).sorted()
                    let each = ratios.map { String(format: "%.0f", 100 * $0.push) }.joined(separator: ", ")
                    print(String(format: "push : bare POSTs, %d rounds: median %.0f %%", ratios.count, 100 * pushes[pushes.count / 2])
                          + " (\(each)); " + String(format: "the sender alone : bare POSTs: median %.0f %% (target: push ≥ 50 %%)", 100 * senders[senders.count / 2]))
                }
                try await http.shutdown()
            }
            group.cancelAll()
        }
    }

    /// Each user: registered in Europe/Belgrade, a webhook, three daily habits (one with its own
    /// reminder at 08:00), a task due today at a time, one due today without, and a savings plan
    /// whose payment is due in five days.
    /// A key of the benchmark's own for the webhooks' sealed secrets.
    static let sealer = SecretSealer(signingKeys: [SigningKey(kid: "bench", secret: "bench-only-secret-0123456789-0123456789")])

    func seed(_ services: Services, store: PostgresEventStore, clock: Clock, hook: String, logger: Logger) async throws {
        let habits = services.habits, tasks = services.tasks, savings = services.savings
        let endpoints = WebhookEndpointStore(client: store.client, sealer: Self.sealer, logger: logger)
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<users {
                if index >= 16 { try await group.next() }
                group.addTask {
                    let userId = UUID()
                    let profile = UserProfile.new(email: "bench\(index)@example.com", name: "Bench \(index)", timezone: "Europe/Belgrade", language: .en, currency: "EUR")
                    _ = try await store.append(
                        to: StreamName(id: AccountEvent.streamId(userId), ownerId: userId, type: AccountEvent.streamType), expected: .noStream,
                        events: [NewEvent(type: AccountEvent.Registered.type, data: try EventCoding.encode(AccountEvent.Registered(userId: userId, profile: profile)),
                                          metadata: EventMetadata(actor: "bench"))])
                    let context = CommandContext(userId: userId)
                    for (n, name) in ["Read", "Walk", "Stretch"].enumerated() {
                        _ = try await habits.create(context, try HabitDefinition.validated(from: HabitDraft(
                            name: name, kind: "boolean", schedule: .daily, startDate: "2026-05-01", reminderTime: n == 0 ? "08:00" : nil)).get())
                    }
                    _ = try await tasks.create(context, try TaskDefinition.validated(from: TaskDraft(title: "Call", dueDate: "2026-06-01", dueTime: "08:00")).get())
                    _ = try await tasks.create(context, try TaskDefinition.validated(from: TaskDraft(title: "Pay rent", dueDate: "2026-06-01")).get())
                    let goal = try await savings.create(context, try NewSavingsGoal.validated(from: SavingsGoalDraft(name: "Trip", currency: "EUR")).get())
                    _ = try await savings.setPlan(context, goal.goal.id, try Checked(reading: SavingsPlanDraft(amount: "100", anchorDay: .day(6), startMonth: "2026-06")))
                    try await endpoints.setReminders(userId, url: slowEvery > 0 && index % slowEvery == 0 ? hook.replacingOccurrences(of: "/hook", with: "/slow") : hook, newSecret: WebhookSender.newSecret(), now: clock.now())
                }
            }
            try await group.waitForAll()
        }
        print(String(format: "seeded %d users in %.0f s", users, seconds(ContinuousClock.now - started)))
    }

    /// The morning's pushes queued again, as they were before the first round, and the table
    /// vacuumed as the first round found it.
    func queueAgain(_ client: PostgresClient, logger: Logger) async throws {
        try await client.run("""
            UPDATE reminder_outbox SET status = 'pending', attempts = 0, lease_until = NULL, claim_id = NULL, delivered_at = NULL,
                                       last_status = NULL, last_error = NULL
            WHERE status = 'delivered' AND endpoint_id IS NOT NULL
            """, logger: logger)
        try await client.run("VACUUM (ANALYZE) reminder_outbox", logger: logger)
    }

    /// The write alone: as many outbox-shaped rows in one INSERT … SELECT, rolled back.
    func insertFloor(_ client: PostgresClient, rows: Int, logger: Logger) async throws -> Double {
        let started = ContinuousClock.now
        try await client.withConnection { connection in
            try await connection.rows("BEGIN", logger: logger)
            try await connection.rows("""
                INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status, created_at)
                SELECT gen_random_uuid(), gen_random_uuid(), 'floor/' || n, 'reminder', 'morning_digest', 'digest', now(), '2026-06-01T08:00',
                       'Your day', 'Habits due: 3', '{}', 'skipped', now()
                FROM generate_series(1, \(rows)) AS n
                """, logger: logger)
            try await connection.rows("ROLLBACK", logger: logger)
        }
        return seconds(ContinuousClock.now - started)
    }

    /// As many pushes as the job made, through its `WebhookSender` with a reminder's body and a
    /// signature, `window` at a time, with no outbox: what is the sender's and what the outbox's.
    func senderFloor(_ http: HTTPClient, hook: String, count: Int, window: Int) async throws -> Double {
        let sender = WebhookSender(http: http, allowPrivate: true)
        let secrets = [WebhookSender.newSecret()]
        let body = #"{"type":"reminder.morning_digest","timestamp":"2026-06-01T06:00:00Z","data":{"id":"0b0e8b7e-6f0a-4c1e-9d8e-2f1c3a4b5c6d","#
            + #""key":"morning/bench/2026-06-01","kind":"morning_digest","subject":"digest","due_at":"2026-06-01T06:00:00Z","#
            + #""due_local":"2026-06-01T08:00","title":"Your day","body":"Habits due: 3, tasks due: 2","data":{"habits":3,"tasks":2}}}"#
        let started = ContinuousClock.now
        var failed = 0
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                if index >= window, try await group.next() == false { failed += 1 }
                group.addTask {
                    if case .delivered = await sender.send(id: "sender-\(index)", body: body, to: hook, secrets: secrets, at: Date(timeIntervalSince1970: 1_780_293_600)) {
                        return true
                    }
                    return false
                }
            }
            for try await ok in group where !ok { failed += 1 }
        }
        if failed > 0 { print("sender floor: \(failed) pushes failed") }
        return Double(count) / max(seconds(ContinuousClock.now - started), 0.001)
    }

    /// The same POSTs straight to the receiver, `window` (64) at a time: what the HTTP side alone allows.
    func postFloor(_ http: HTTPClient, hook: String, count: Int, window: Int) async throws -> Double {
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                if index >= window { try await group.next() }
                group.addTask {
                    var request = HTTPClientRequest(url: hook)
                    request.method = .POST
                    request.headers.add(name: "webhook-id", value: "floor-\(index)")
                    request.body = .bytes(ByteBuffer(string: #"{"type":"floor"}"#))
                    let response = try await http.execute(request, timeout: .seconds(15))
                    for try await _ in response.body {}
                }
            }
            try await group.waitForAll()
        }
        return Double(count) / max(seconds(ContinuousClock.now - started), 0.001)
    }
}
