import API
import Core
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
    /// As `lifelog` does (`LIFELOG_EXECUTOR`): the store measured here runs the way the server does.
    static func main() async {
        EventLoopExecutor.install()
        await Self.main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "lifelog-bench",
        abstract: "lifelog benchmarks; each prints its figures.",
        subcommands: [Appends.self, ConcurrentAppends.self, Rebuild.self, ProjectorLag.self, HTTPLoad.self, MoneyLoad.self, HealthLoad.self, ExportSample.self, HabitCompute.self, ReminderLoad.self, DashboardSeed.self])
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

/// Runs `body` with a floor on the schema owner's connection (DATABASE_URL names the owner) and
/// the store's client as `lifelog_app`, with `appendConnections` kept beside its pool, as the
/// server runs.
func withClients(
    _ options: Options, floorOptions: FloorOptions, maximumConnections: Int, appendConnections capacity: Int,
    _ body: @escaping @Sendable (Floor, PostgresClient, AppendConnections) async throws -> Void
) async throws {
    let logger = options.logger
    let url = try options.url()
    try await PostgresClient.withRunning(url.clientConfiguration(maximumConnections: 2), logger: logger) { owner in
        let floor = Floor(owner: owner, url: url, options: floorOptions, logger: logger)
        try await floor.prepare()
        try await PostgresClient.withRunning(url.clientConfiguration(role: "lifelog_app", maximumConnections: maximumConnections),
                                              logger: logger) { client in
            let connections = AppendConnections(
                configuration: try url.appendConnectionConfiguration(role: "lifelog_app"), capacity: capacity, logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await connections.run() }
                defer { group.cancelAll() }
                try await body(floor, client, connections)
            }
        }
    }
}

/// Alternates which run goes first, so a drift of the machine during a round favours no one.
func interleaved<T>(_ round: Int, _ runs: [T]) -> [T] { round % 2 == 0 ? runs : runs.reversed() }

struct Appends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sequential single-event appends through the store API, without and with the inline projectors, against pgbench's single-row INSERT.")
    @OptionGroup var options: Options
    @OptionGroup var floorOptions: FloorOptions
    @Option(help: "Appends per run.") var count = 10_000

    /// With the floor, each round also takes apart an append's time: pgbench sending the store's
    /// own call (the append function's share), and a prepared `SELECT 1` through libpq, through
    /// the store's client on one connection held throughout (the driver's share), and leasing a
    /// connection from the pool for each, as the store does (the pool's share).
    enum Run { case floor, store, pooled, inline, function, libpqTrip, heldTrip, clientTrip }

    func run() async throws {
        let logger = options.logger
        let (count, rounds) = (self.count, floorOptions.rounds)
        let measureFloor = floorOptions.pgbench != nil
        let scripts = URL(fileURLWithPath: floorOptions.pgbenchScript).deletingLastPathComponent()
        try await withClients(options, floorOptions: floorOptions, maximumConnections: 4, appendConnections: 2) { floor, client, connections in
            let plain = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), logger: logger, appendConnections: connections)
            let pooled = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), logger: logger)
            let inline = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), hook: InlineProjections(projectors: AreaCatalog.projectors),
                                            logger: logger, appendConnections: connections)
            var floorRates = Series(label: "pgbench single-row INSERT")
            var storeRates = Series(label: "store API")
            var pooledRates = Series(label: "store API, a pool lease each (no append connections)")
            var inlineRates = Series(label: "store API with inline projectors")
            var functionRates = Series(label: "pgbench calling the append function")
            var libpqTrips = Series(label: "prepared SELECT 1 through libpq (pgbench)")
            var heldTrips = Series(label: "prepared SELECT 1 through the store's client, one connection held")
            var clientTrips = Series(label: "prepared SELECT 1 through the store's client, a connection leased for each")
            print("appends: \(rounds) round(s) of \(count) sequential single-event appends per run, each run after a CHECKPOINT")
            for round in 0..<rounds {
                var parts: [String] = []
                let runs: [Run] = measureFloor ? [.floor, .store, .pooled, .inline, .function, .libpqTrip, .heldTrip, .clientTrip] : [.store, .pooled, .inline]
                for run in interleaved(round, runs) {
                    try await floor.checkpoint()
                    switch run {
                    case .floor:
                        let rate = try await floor.pgbench(clients: 1, transactions: count, batch: 1)
                        floorRates.values.append(rate)
                        parts.append(String(format: "pgbench %.0f/s", rate))
                    case .store, .pooled, .inline:
                        let figures = try await Self.appendRun(run == .store ? plain : run == .pooled ? pooled : inline, count: count)
                        switch run {
                        case .store: storeRates.values.append(figures.rate)
                        case .pooled: pooledRates.values.append(figures.rate)
                        default: inlineRates.values.append(figures.rate)
                        }
                        parts.append(String(format: "%@ %.0f/s (p50 %.2f ms, p99 %.2f ms)", run == .store ? "store" : run == .pooled ? "store leasing" : "inline",
                                            figures.rate, figures.p50, figures.p99))
                    case .function:
                        let rate = try await floor.pgbench(clients: 1, transactions: count, batch: 1,
                                                           script: scripts.appendingPathComponent("append_function.sql").path, mode: "prepared")
                        functionRates.values.append(rate)
                        parts.append(String(format: "pgbench's append call %.0f/s", rate))
                    case .libpqTrip:
                        let rate = try await floor.pgbench(clients: 1, transactions: count, batch: 1,
                                                           script: scripts.appendingPathComponent("select_one.sql").path, mode: "prepared")
                        libpqTrips.values.append(1_000_000 / rate)
                        parts.append(String(format: "SELECT 1 libpq %.0f µs", 1_000_000 / rate))
                    case .heldTrip, .clientTrip:
                        let micros = try await Self.roundTrips(client, count: count, leaseEach: run == .clientTrip, logger: logger)
                        if run == .clientTrip { clientTrips.values.append(micros) } else { heldTrips.values.append(micros) }
                        parts.append(String(format: "SELECT 1 store's client %.0f µs (%@)", micros, run == .clientTrip ? "leased each" : "held"))
                    }
                }
                print("  round \(round + 1): " + parts.joined(separator: ", "))
            }
            if measureFloor { print("  " + floorRates.line(unit: "appends/s")) }
            print("  " + storeRates.line(unit: "appends/s"))
            print("  " + pooledRates.line(unit: "appends/s"))
            print("  " + inlineRates.line(unit: "appends/s"))
            if measureFloor {
                print("  " + storeRates.ratioLine(to: floorRates, target: 0.85))
                print("  " + pooledRates.ratioLine(to: floorRates))
                print("  " + inlineRates.ratioLine(to: floorRates))
                Self.printShares(floor: floorRates, store: pooledRates, function: functionRates, libpq: libpqTrips, held: heldTrips, leased: clientTrips)
            }
            print(String(format: "  inline projectors: %.0f %% of an append's time (median store rate / median inline rate)",
                         (1 - inlineRates.median / max(storeRates.median, 1)) * 100))
        }
    }

    /// Where a sequential append's time goes beyond the INSERT's, from the rounds' medians: the
    /// append function's statements (pgbench calling it, prepared, as the store does), the
    /// driver's round trip against libpq's, and the pool's lease and release around each statement.
    static func printShares(floor: Series, store: Series, function: Series, libpq: Series, held: Series, leased: Series) {
        print("  " + function.line(unit: "calls/s"))
        print("  " + function.ratioLine(to: floor))
        print("  " + store.ratioLine(to: function))
        for trips in [libpq, held, leased] { print("  " + trips.line(unit: "µs")) }
        let insert = 1_000_000 / max(floor.median, 1), call = 1_000_000 / max(function.median, 1)
        let driver = held.median - libpq.median, pool = leased.median - held.median
        let append = 1_000_000 / max(store.median, 1)
        print(String(format: "  a sequential append, median µs: the INSERT %.0f; the append function's call %.0f (%+.0f); the driver's round trip "
                     + "%+.0f over libpq's; the pool's lease and release %+.0f; the rest (sealing, the answer) %+.0f; the store API %.0f",
                     insert, call, call - insert, driver, pool, append - call - driver - pool, append))
        print(String(format: "  so this driver and pool leave the store API about %.0f %% of the INSERT (its call plus the round trip's and the pool's costs; an estimate from medians, not a bound)",
                     100 * insert / (call + driver + pool)))
    }

    /// A prepared `SELECT 1`, sent as the store sends its append (from the connection's event
    /// loop), on one connection held throughout or on a connection leased from the pool for each
    /// (as the store does): microseconds a round trip.
    static func roundTrips(_ client: PostgresClient, count: Int, leaseEach: Bool, logger: Logger) async throws -> Double {
        // Warmed up, then timed: microseconds a call of `trip`.
        func perTrip(_ trip: () async throws -> Void) async throws -> Double {
            for _ in 0..<200 { try await trip() }
            let clock = ContinuousClock()
            let started = clock.now
            for _ in 0..<count { try await trip() }
            return seconds(clock.now - started) * 1_000_000 / Double(count)
        }
        if leaseEach {
            return try await perTrip { _ = try await client.withConnection { try await $0.prepared(SelectOne(), logger: logger) } }
        }
        return try await client.withConnection { connection in
            try await perTrip { _ = try await connection.prepared(SelectOne(), logger: logger) }
        }
    }

    struct SelectOne: PostgresPreparedStatement {
        static let name = "bench_select_one"
        static let sql = "SELECT 1"
        typealias Row = Int32
        func makeBindings() throws -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// One stream, appended to at the version each append expects: the real write path.
    static func appendRun(_ store: PostgresEventStore, count: Int) async throws -> (rate: Double, p50: Double, p99: Double) {
        let stream = StreamName(id: "bench-\(UUID().uuidString.lowercased())", ownerId: UUID(), type: "bench")
        for n in 0..<200 { try await store.append(to: stream, expected: .any, events: [event(n)]) }  // warm-up
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        let clock = ContinuousClock()
        let started = clock.now
        for n in 0..<count {
            let before = clock.now
            try await store.append(to: stream, expected: .exact(Int64(200 + n)), events: [event(n)])
            latencies.append(seconds(clock.now - before) * 1000)
        }
        let elapsed = seconds(clock.now - started)
        latencies.sort()
        return (Double(count) / elapsed, percentile(latencies, 0.5), percentile(latencies, 0.99))
    }
}

struct ConcurrentAppends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concurrent",
        abstract: "Concurrent writers appending batches, each to its own stream, without and with the inline projectors, against pgbench.")
    @OptionGroup var options: Options
    @OptionGroup var floorOptions: FloorOptions
    @Option(help: "Writers.") var writers = 8
    @Option(help: "Events per batch.") var batch = 10
    @Option(help: "Batches per writer and run.") var batches = 1_000

    /// With the floor, each round also has pgbench send the store's own call for each batch (the
    /// append function's share under concurrent writers).
    enum Run { case floor, store, pooled, inline, function }

    func run() async throws {
        let logger = options.logger
        let (writers, batch, batches, rounds) = (self.writers, self.batch, self.batches, floorOptions.rounds)
        let measureFloor = floorOptions.pgbench != nil
        let script = URL(fileURLWithPath: floorOptions.pgbenchScript).deletingLastPathComponent().appendingPathComponent("append_function_batch.sql").path
        try await withClients(options, floorOptions: floorOptions, maximumConnections: writers + 2, appendConnections: writers) { floor, client, connections in
            let plain = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), logger: logger, appendConnections: connections)
            let pooled = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), logger: logger)
            let inline = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), hook: InlineProjections(projectors: AreaCatalog.projectors),
                                            logger: logger, appendConnections: connections)
            var floorRates = Series(label: "pgbench \(batch)-row INSERTs")
            var storeRates = Series(label: "store API")
            var pooledRates = Series(label: "store API, a pool lease each (no append connections)")
            var inlineRates = Series(label: "store API with inline projectors")
            var functionRates = Series(label: "pgbench calling the append function with each batch")
            print("concurrent: \(rounds) round(s) of \(writers) writers x \(batches) batches of \(batch) events per run, each run after a CHECKPOINT")
            for round in 0..<rounds {
                var parts: [String] = []
                for run in interleaved(round, measureFloor ? [Run.floor, .store, .pooled, .inline, .function] : [.store, .pooled, .inline]) {
                    try await floor.checkpoint()
                    switch run {
                    case .floor:
                        let rate = try await floor.pgbench(clients: writers, transactions: batches, batch: batch)
                        floorRates.values.append(rate)
                        parts.append(String(format: "pgbench %.0f events/s", rate))
                    case .function:
                        let rate = try await floor.pgbench(clients: writers, transactions: batches, batch: batch, script: script, mode: "prepared")
                        functionRates.values.append(rate)
                        parts.append(String(format: "pgbench's append calls %.0f events/s", rate))
                    case .store, .pooled, .inline:
                        let rate = try await Self.concurrentRun(run == .store ? plain : run == .pooled ? pooled : inline, writers: writers, batch: batch, batches: batches)
                        switch run {
                        case .store: storeRates.values.append(rate)
                        case .pooled: pooledRates.values.append(rate)
                        default: inlineRates.values.append(rate)
                        }
                        parts.append(String(format: "%@ %.0f events/s", run == .store ? "store" : run == .pooled ? "store leasing" : "inline", rate))
                    }
                }
                print("  round \(round + 1): " + parts.joined(separator: ", "))
            }
            if measureFloor { print("  " + floorRates.line(unit: "events/s")) }
            print("  " + storeRates.line(unit: "events/s"))
            print("  " + pooledRates.line(unit: "events/s"))
            print("  " + inlineRates.line(unit: "events/s"))
            if measureFloor {
                print("  " + storeRates.ratioLine(to: floorRates, target: 0.80, atLeast: 0.50))
                print("  " + pooledRates.ratioLine(to: floorRates))
                print("  " + inlineRates.ratioLine(to: floorRates))
                print("  " + functionRates.line(unit: "events/s"))
                print("  " + functionRates.ratioLine(to: floorRates))
                print("  " + storeRates.ratioLine(to: functionRates))
            }
            print(String(format: "  inline projectors: %.0f %% of an append's time (median store rate / median inline rate)",
                         (1 - inlineRates.median / max(storeRates.median, 1)) * 100))
        }
    }

    static func concurrentRun(_ store: PostgresEventStore, writers: Int, batch: Int, batches: Int) async throws -> Double {
        let streams = (0..<writers).map { _ in StreamName(id: "bench-\(UUID().uuidString.lowercased())", ownerId: UUID(), type: "bench") }
        // Warm-up: every writer's connection open and its stream created (pgbench's figure also
        // leaves out connecting).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stream in streams {
                group.addTask { try await store.append(to: stream, expected: .noStream, events: [event(0)]) }
            }
            try await group.waitForAll()
        }
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stream in streams {
                group.addTask {
                    for b in 0..<batches {
                        try await store.append(to: stream, expected: .exact(Int64(1 + b * batch)), events: (0..<batch).map { event($0) })
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = seconds(clock.now - started)
        return Double(writers * batch * batches) / elapsed
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
            for try await n in try await client.rows("SELECT count(*)::int FROM events", logger: logger).decode(Int.self) { existing = n }
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
            let rebuilder = ProjectionRebuilder(client: client, keyring: try BenchKeys.keyring(), logger: logger, batchSize: batchSize)
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
    static let configuration = CommandConfiguration(commandName: "lag", abstract: "Async projector lag under a steady write rate spread over writers.")
    @OptionGroup var options: Options
    @Option(help: "Events per second, all writers together.") var rate = 1_000
    @Option(help: "Writers, each on its own stream at rate / writers.") var writers = 8
    @Option(help: "Seconds to run.") var duration = 30

    func run() async throws {
        let logger = options.logger
        let (rate, writers, duration) = (self.rate, self.writers, self.duration)
        let url = try options.url()
        try await PostgresClient.withRunning(url.clientConfiguration(role: "lifelog_app", maximumConnections: writers + 4), logger: logger) { client in
            // The HTTP path: inline projectors in each append's transaction, and the waker `serve` runs.
            let store = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
            let waker = ReaderWaker(client: client, logger: logger)
            let clock = ContinuousClock()
            let tracker = LagTracker(clock: clock)
            // Start from the head, so old events do not count as lag.
            try await AsyncProjectorRunner(projector: OwnerActivityProjector(), client: client, keyring: try BenchKeys.keyring(), batchSize: 10_000, logger: logger).catchUp()
            let runner = AsyncProjectorRunner(projector: OwnerActivityProjector(), client: client, keyring: try BenchKeys.keyring(), logger: logger) { events in
                tracker.applied(events.map(\.eventId))
            }
            let daemon = AsyncProjectionDaemon(runners: [runner], listener: try url.connectionConfiguration(), pollInterval: .seconds(1), logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await daemon.run() }
                group.addTask { try await waker.run() }
                try await Task.sleep(for: .milliseconds(500))
                let interval = Duration.seconds(1) * writers / rate
                let start = clock.now
                try await withThrowingTaskGroup(of: Void.self) { writing in
                    for writer in 0..<writers {
                        writing.addTask {
                            let stream = StreamName(id: "bench-\(UUID().uuidString.lowercased())", ownerId: UUID(), type: "bench")
                            // Writers start staggered, so the appends are spread evenly over time.
                            var next = start.advanced(by: interval * writer / writers)
                            for n in 0..<(rate * duration / writers) {
                                try await clock.sleep(until: next)
                                next = next.advanced(by: interval)
                                let e = event(n)
                                tracker.committed(e.eventId)  // just before: the commit happens inside append
                                try await store.append(to: stream, expected: .any, events: [e])
                                tracker.committed(e.eventId)  // the append has returned: the event is committed
                            }
                        }
                    }
                    try await writing.waitForAll()
                }
                let achieved = Double(tracker.count) / seconds(clock.now - start)
                try await Task.sleep(for: .seconds(2))
                group.cancelAll()
                let lags = tracker.lags().sorted()
                print(String(format: "lag: %d events at %d/s over %d writers (achieved %.0f/s); async projector lag after commit p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d not applied",
                             lags.count, rate, writers, achieved, percentile(lags, 0.5), percentile(lags, 0.99), lags.last ?? 0, tracker.unapplied))
            }
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
    /// Events marked committed so far (applied or not).
    var count: Int { lock.withLock { committedAt.count + lagsMs.count } }
    var unapplied: Int { lock.withLock { committedAt.count } }
}
