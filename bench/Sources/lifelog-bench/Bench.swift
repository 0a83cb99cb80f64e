import API
import ArgumentParser
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// Benchmarks that print figures (see bench/README.md). They need a migrated database with
/// durable settings: `bench/run` makes one.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifelog-bench",
        abstract: "lifelog benchmarks; each prints its figures.",
        subcommands: [Appends.self, ConcurrentAppends.self, Rebuild.self, ProjectorLag.self, HTTPLoad.self, HabitCompute.self])
}

struct Options: ParsableArguments {
    @Option(help: "Database URL (a migrated lifelog database).")
    var databaseURL: String = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""

    var logger: Logger {
        var logger = Logger(label: "lifelog.bench")
        logger.logLevel = .warning
        return logger
    }

    func url() throws -> DatabaseURL {
        guard !databaseURL.isEmpty else { throw ValidationError("set DATABASE_URL or --database-url") }
        return try DatabaseURL(parsing: databaseURL)
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// Resident memory now, in MiB (from /proc/self/statm).
func residentMiB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func event(_ n: Int) -> NewEvent {
    NewEvent(type: "bench.happened", data: #"{"n":\#(n),"note":"synthetic"}"#, metadata: EventMetadata(actor: "bench"))
}

struct Appends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sequential single-event appends through the store API.")
    @OptionGroup var options: Options
    @Option(help: "How many appends.") var count = 10_000
    @Flag(help: "Run the inline projectors in each append's transaction, as the server does.") var inline = false

    func run() async throws {
        let logger = options.logger
        let count = self.count
        let inline = self.inline
        try await PostgresClient.withRunning(try options.url().clientConfiguration(role: "lifelog_app"), logger: logger) { client in
            let store = PostgresEventStore(
                client: client, hook: inline ? InlineProjections(projectors: AreaCatalog.projectors) : nil, logger: logger)
            let owner = UUID()
            let stream = StreamName(id: "bench-\(UUID().uuidString.lowercased())", ownerId: owner, type: "bench")
            for n in 0..<200 { try await store.append(to: stream, expected: .any, events: [event(n)]) }  // warm-up
            var latencies: [Double] = []
            latencies.reserveCapacity(count)
            let clock = ContinuousClock()
            let started = clock.now
            for n in 0..<count {
                let before = clock.now
                // Each append targets its stream at the version it expects: the real write path.
                try await store.append(to: stream, expected: .exact(Int64(200 + n)), events: [event(n)])
                latencies.append(seconds(clock.now - before) * 1000)
            }
            let elapsed = seconds(clock.now - started)
            latencies.sort()
            print(String(format: "appends%@: %d sequential single-event appends in %.2f s = %.0f appends/s (p50 %.2f ms, p99 %.2f ms)",
                         inline ? " (with inline projectors)" : "", count, elapsed, Double(count) / elapsed,
                         percentile(latencies, 0.5), percentile(latencies, 0.99)))
        }
    }
}

struct ConcurrentAppends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "concurrent", abstract: "Concurrent writers appending batches.")
    @OptionGroup var options: Options
    @Option(help: "Writers.") var writers = 8
    @Option(help: "Events per batch.") var batch = 10
    @Option(help: "Batches per writer.") var batches = 1_000

    func run() async throws {
        let logger = options.logger
        let (writers, batch, batches) = (self.writers, self.batch, self.batches)
        try await PostgresClient.withRunning(try options.url().clientConfiguration(role: "lifelog_app", maximumConnections: writers + 2), logger: logger) { client in
            let store = PostgresEventStore(client: client, logger: logger)
            let clock = ContinuousClock()
            let started = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<writers {
                    group.addTask {
                        let stream = StreamName(id: "bench-\(UUID().uuidString.lowercased())", ownerId: UUID(), type: "bench")
                        for b in 0..<batches {
                            try await store.append(to: stream, expected: .exact(Int64(b * batch)), events: (0..<batch).map { event($0) })
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = seconds(clock.now - started)
            let total = writers * batch * batches
            print(String(format: "concurrent: %d writers x %d batches of %d events = %d events in %.2f s = %.0f events/s",
                         writers, batches, batch, total, elapsed, Double(total) / elapsed))
        }
    }
}

struct Rebuild: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Rebuild a read model over a large log.")
    @OptionGroup var options: Options
    @Option(help: "Events the log should hold (seeded in bulk if fewer).") var events = 1_000_000
    @Option(help: "Events per rebuild batch.") var batchSize = 5_000

    func run() async throws {
        let logger = options.logger
        let (target, batchSize) = (self.events, self.batchSize)
        try await PostgresClient.withRunning(try options.url().clientConfiguration(), logger: logger) { client in
            var existing = 0
            for try await n in try await client.query("SELECT count(*)::int FROM events").decode(Int.self) { existing = n }
            if existing < target {
                let missing = target - existing
                print("seeding \(missing) events (10 per stream, 50 owners) ...")
                // Bulk seeding straight into the log: the benchmark measures the rebuild, not the seeding.
                try await client.run("""
                    WITH s AS (SELECT i, 'seed-' || \(existing) || '-' || (i / 10) AS stream_id,
                                      md5('owner' || (i % 50))::uuid AS owner_id FROM generate_series(0, \(missing) - 1) AS i)
                    INSERT INTO events (event_id, owner_id, stream_id, stream_version, event_type, data, metadata)
                    SELECT gen_random_uuid(), owner_id, stream_id, i % 10 + 1,
                           (ARRAY['seed.created', 'seed.changed', 'seed.logged'])[i % 3 + 1],
                           jsonb_build_object('n', i, 'note', 'synthetic'), '{"actor":"bench"}'::jsonb
                    FROM s
                    """, logger: logger)
                try await client.run("""
                    INSERT INTO streams (stream_id, owner_id, stream_type, version)
                    SELECT stream_id, min(owner_id::text)::uuid, 'seed', max(stream_version) FROM events
                    WHERE stream_id LIKE 'seed-%' GROUP BY stream_id
                    ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version
                    """, logger: logger)
                try await client.run("VACUUM ANALYZE events", logger: logger)
            }
            let rebuilder = ProjectionRebuilder(client: client, logger: logger, batchSize: batchSize)
            let memoryAtStart = residentMiB()
            let samples = MemorySamples()
            let report = try await rebuilder.rebuild(StreamSummaryProjector()) { progress in
                samples.add(residentMiB())
            }
            let elapsed = seconds(report.elapsed)
            let rss = samples.values
            print(String(format: "rebuild: %lld events in %.2f s = %.0f events/s; cutover (writes paused) %.1f ms",
                         report.eventsApplied, elapsed, Double(report.eventsApplied) / elapsed, seconds(report.cutoverDuration) * 1000))
            print(String(format: "rebuild memory (RSS MiB): start %.1f, after 10%% %.1f, 50%% %.1f, end %.1f, max %.1f",
                         memoryAtStart, rss.isEmpty ? 0 : rss[rss.count / 10], rss.isEmpty ? 0 : rss[rss.count / 2],
                         rss.last ?? 0, rss.max() ?? 0))
        }
    }
}

final class MemorySamples: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Double] = []
    func add(_ value: Double) { lock.withLock { storage.append(value) } }
    var values: [Double] { lock.withLock { storage } }
}

struct ProjectorLag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lag", abstract: "Async projector lag under a steady write rate.")
    @OptionGroup var options: Options
    @Option(help: "Events per second.") var rate = 100
    @Option(help: "Seconds to run.") var duration = 30

    func run() async throws {
        let logger = options.logger
        let (rate, duration) = (self.rate, self.duration)
        let url = try options.url()
        try await PostgresClient.withRunning(url.clientConfiguration(role: "lifelog_app"), logger: logger) { client in
            let store = PostgresEventStore(client: client, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
            let clock = ContinuousClock()
            let tracker = LagTracker(clock: clock)
            // Start from the head, so old events do not count as lag.
            try await AsyncProjectorRunner(projector: OwnerActivityProjector(), client: client, batchSize: 10_000, logger: logger).catchUp()
            let runner = AsyncProjectorRunner(projector: OwnerActivityProjector(), client: client, logger: logger) { events in
                tracker.applied(events.map(\.eventId))
            }
            let daemon = AsyncProjectionDaemon(runners: [runner], listener: try url.connectionConfiguration(), pollInterval: .seconds(1), logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await daemon.run() }
                try await Task.sleep(for: .milliseconds(500))
                let stream = StreamName(id: "bench-\(UUID().uuidString.lowercased())", ownerId: UUID(), type: "bench")
                let interval = Duration.seconds(1) / rate
                var next = clock.now
                for n in 0..<(rate * duration) {
                    next = next.advanced(by: interval)
                    let e = event(n)
                    tracker.committed(e.eventId)  // just before: the commit happens inside append
                    try await store.append(to: stream, expected: .any, events: [e])
                    tracker.committed(e.eventId)  // the append has returned: the event is committed
                    try await clock.sleep(until: next)
                }
                try await Task.sleep(for: .seconds(2))
                group.cancelAll()
            }
            let lags = tracker.lags().sorted()
            print(String(format: "lag: %d events at %d/s; async projector lag after commit p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d not applied",
                         lags.count, rate, percentile(lags, 0.5), percentile(lags, 0.99), lags.last ?? 0, tracker.unapplied))
        }
    }
}

/// Commit and apply instants per event id, for lag figures.
final class LagTracker: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: ContinuousClock
    private var committedAt: [UUID: ContinuousClock.Instant] = [:]
    private var lagsMs: [Double] = []
    private var appliedIds: Set<UUID> = []

    init(clock: ContinuousClock) { self.clock = clock }

    func committed(_ id: UUID) {
        let now = clock.now
        lock.withLock {
            // Keep the later of the two marks, unless the event was already applied in between.
            if !appliedIds.contains(id) { committedAt[id] = now }
        }
    }

    func applied(_ ids: [UUID]) {
        let now = clock.now
        lock.withLock {
            for id in ids {
                appliedIds.insert(id)
                if let start = committedAt.removeValue(forKey: id) {
                    lagsMs.append(max(0, seconds(now - start) * 1000))
                }
            }
        }
    }

    func lags() -> [Double] { lock.withLock { lagsMs } }
    var unapplied: Int { lock.withLock { committedAt.count } }
}
