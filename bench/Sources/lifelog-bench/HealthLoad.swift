import ArgumentParser
import AsyncHTTPClient
import EventStore
import Foundation
import NIOHTTP1
import PostgresNIO
import Projections

/// Health over HTTP (issues 12 and 13): a heavy synthetic year of samples sent as native
/// batches, timed until the day read models have caught up; the same samples again (all
/// duplicates); `GET /health/daily` for 90 days × every metric, the briefing and 90 days of
/// recovery scores at a fixed rate; a late HRV sample 30 days back until its dates are scored
/// again; and the recovery and audit models rebuilt from scratch.
struct HealthLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health", abstract: "Health ingestion end to end, re-sending, and the daily read at a fixed rate.")

    @Option(help: "The running server.") var baseURL = "http://127.0.0.1:8089"
    @OptionGroup var options: Options
    @Option(help: "Samples to send.") var samples = 1_000_000
    @Option(help: "Samples per request.") var batch = 5_000
    @Option(help: "Requests in flight.") var width = 4
    @Option(help: "Requests per second for the read.") var rate = 100
    @Option(help: "Seconds of the read scenario.") var duration = 20
    @Option(help: "The server's process id, to sample its memory.") var serverPid: Int32?
    @Flag(help: "Give every item a uuid in capitals, as HealthKit's objects have.") var uuids = false

    func run() async throws {
        try await HTTPDriver.with(baseURL: baseURL, load)
    }

    /// A deterministic heavy stretch of `days` days (about nine months by default) ending yesterday, minute by minute:
    /// the watch's heart rate every minute; by day its steps and energy per minute and the
    /// phone's steps per 10 minutes (overlapping the watch's); by night sleep stages per 5 minutes.
    static func bodies(samples: Int, batch: Int, end: Date, days: Int = 300, uuids: Bool = false) -> [String] {
        let source = (watch: #"{"name":"Apple Watch","kind":"watch"}"#, phone: #"{"name":"iPhone","kind":"phone"}"#)
        let formatter = ISO8601DateFormatter()
        var quantities: [[String]] = [], sleep: [[String]] = []
        var current: [String] = [], currentSleep: [String] = []
        var count = 0
        func add(_ item: String, asleep: Bool = false) {
            let item = uuids ? #"{"uuid":"00000000-0000-4000-8000-\#(String(count + 0xA000_0000_0000, radix: 16, uppercase: true))","# + item.dropFirst() : item
            if asleep { currentSleep.append(item) } else { current.append(item) }
            count += 1
            if current.count + currentSleep.count == batch {
                quantities.append(current); sleep.append(currentSleep)
                current = []; currentSleep = []
            }
        }
        let start = end.addingTimeInterval(-Double(days) * 86_400)
        var minute = 0
        while count < samples {
            let at = start.addingTimeInterval(Double(minute) * 60)
            let from = formatter.string(from: at), to = formatter.string(from: at.addingTimeInterval(60))
            let hour = (minute / 60) % 24
            add(#"{"metric":"heart_rate","value":\#(55 + minute % 40),"unit":"count/min","start":"\#(from)","end":"\#(from)","source":\#(source.watch)}"#)
            // Each morning the watch's HRV and resting heart rate: what the recovery score reads.
            if hour == 6, minute % 60 == 0, count + 2 <= samples {
                let day = minute / 1_440
                add(#"{"metric":"hrv_sdnn","value":\#(35 + (day * 7) % 30),"unit":"ms","start":"\#(from)","end":"\#(from)","source":\#(source.watch)}"#)
                add(#"{"metric":"resting_heart_rate","value":\#(50 + (day * 3) % 9),"unit":"count/min","start":"\#(from)","end":"\#(from)","source":\#(source.watch)}"#)
            }
            if hour < 6 {
                if minute % 5 == 0, count < samples {
                    let stage = ["core", "deep", "core", "rem", "awake"][(minute / 5) % 5]
                    add(#"{"stage":"\#(stage)","start":"\#(from)","end":"\#(formatter.string(from: at.addingTimeInterval(300)))","source":\#(source.watch)}"#, asleep: true)
                }
            } else if count + 2 <= samples {
                add(#"{"metric":"steps","value":\#(20 + minute % 90),"unit":"count","start":"\#(from)","end":"\#(to)","source":\#(source.watch)}"#)
                add(#"{"metric":"active_energy","value":\#(Double(minute % 50) / 10 + 0.5),"unit":"kcal","start":"\#(from)","end":"\#(to)","source":\#(source.watch)}"#)
                if minute % 10 == 0, count < samples {
                    add(#"{"metric":"steps","value":\#(100 + minute % 70),"unit":"count","start":"\#(from)","end":"\#(formatter.string(from: at.addingTimeInterval(600)))","source":\#(source.phone)}"#)
                }
            }
            minute += 1
        }
        if !current.isEmpty || !currentSleep.isEmpty { quantities.append(current); sleep.append(currentSleep) }
        return zip(quantities, sleep).map { #"{"samples":[\#($0.joined(separator: ","))],"sleep":[\#($1.joined(separator: ","))]}"# }
    }

    func load(_ http: HTTPDriver) async throws {
        let token = try await http.register()
        try await http.openLoop("GET /healthz (the floor: server and load tool alone)", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/healthz", nil)
        }
        let end = Calendar(identifier: .gregorian).startOfDay(for: Date())
        let bodies = Self.bodies(samples: samples, batch: batch, end: end, uuids: uuids)
        let memory = MemorySampler(pid: serverPid)
        print("health: \(samples) samples in \(bodies.count) requests of \(batch), \(width) in flight; server RSS before: \(memory.describeNow())")

        var cpu = CPUMeter(pid: serverPid)
        let (first, firstPosition, firstCounts) = try await send(http, token: token, bodies: bodies, memory: memory)
        let caughtUp = try await waitForDays(http, token: token, position: firstPosition)
        let firstCPU = cpu.lap()
        let total = seconds(first + caughtUp)
        print(String(format: "health first pass: stored in %.1f s (%.0f samples/s), day models caught up %.1f s later: %.1f s end to end; %@",
                     seconds(first), Double(samples) / seconds(first), seconds(caughtUp), total, firstCounts))
        print("health first pass CPU: \(firstCPU)")
        print("health server RSS: \(memory.describe())")

        let (second, _, secondCounts) = try await send(http, token: token, bodies: bodies, memory: memory)
        let secondCPU = cpu.lap()
        print(String(format: "health re-send: %.1f s (%.0f samples/s, %.1f× the first pass's storing time); %@",
                     seconds(second), Double(samples) / seconds(second), seconds(first) / seconds(second), secondCounts))
        print("health re-send CPU: \(secondCPU)")
        print("health server RSS: \(memory.describe())")
        try await Settle.database(options.databaseURL, logger: options.logger)

        let today = ISO8601DateFormatter.string(from: end, timeZone: TimeZone(identifier: "Europe/Belgrade") ?? .gmt, formatOptions: [.withFullDate])
        let from = ISO8601DateFormatter.string(from: end.addingTimeInterval(-89 * 86_400), timeZone: TimeZone(identifier: "Europe/Belgrade") ?? .gmt,
                                               formatOptions: [.withFullDate])
        try await http.openLoop("GET /api/v1/health/daily (90 days × every metric)", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/api/v1/health/daily?from=\(from)&to=\(today)", nil)
        }
        try await http.openLoop("GET /api/v1/health/briefing", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/api/v1/health/briefing?lang=ru", nil)
        }
        try await http.openLoop("GET /api/v1/health/recovery (90 days)", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/api/v1/health/recovery?from=\(from)&to=\(today)", nil)
        }
        try await lateSample(http, token: token, end: end)
        try await rebuild()
    }

    /// A late HRV sample for a date 30 days back, five times: from the ingest answer until a
    /// recovery read of that date (which waits for its `position`) answers. The projector scores
    /// that date and the 60 after it again in the same transaction, so the read is the whole lag.
    func lateSample(_ http: HTTPDriver, token: String, end: Date) async throws {
        var lags: [Double] = []
        let zone = TimeZone(identifier: "Europe/Belgrade") ?? .gmt
        for round in 0..<5 {
            let at = end.addingTimeInterval(Double(-30 * 86_400 + 7 * 3_600 + round * 60))
            let instant = ISO8601DateFormatter().string(from: at)
            let date = ISO8601DateFormatter.string(from: at, timeZone: zone, formatOptions: [.withFullDate])
            let body = #"{"samples":[{"metric":"hrv_sdnn","value":\#(20 + round),"unit":"ms","start":"\#(instant)","end":"\#(instant)","source":{"name":"Ring","kind":"ring"}}]}"#
            let (code, answer) = try await http.call(.POST, "/api/v1/ingest/health", token: token, json: body)
            let started = ContinuousClock.now
            guard code == 200, let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
                  let position = object["position"] as? String else { throw HTTPDriver.Failure(description: "late sample: \(code) \(answer.prefix(200))") }
            while true {
                let (read, text) = try await http.call(.GET, "/api/v1/health/recovery?date=\(date)&min_position=\(position)", token: token, json: nil)
                if read == 200 { break }
                guard read == 202 else { throw HTTPDriver.Failure(description: "recovery read: \(read) \(text.prefix(200))") }
            }
            lags.append(seconds(ContinuousClock.now - started) * 1_000)
        }
        print(String(format: "health late sample 30 days back, re-scored (5 rounds): max %.0f ms, median %.0f ms", lags.max() ?? 0, lags.sorted()[2]))
    }

    /// The recovery scores (with the days and nights they read: one projector) and the audit,
    /// each rebuilt from the log while the server runs.
    func rebuild() async throws {
        guard !options.databaseURL.isEmpty else { return print("health rebuild: no DATABASE_URL; skipped") }
        let logger = options.logger
        try await PostgresClient.withRunning(try options.url().clientConfiguration(), logger: logger) { client in
            let rebuilder = ProjectionRebuilder(client: client, keyring: try BenchKeys.keyring(), logger: logger, batchSize: 200)
            for projector: any Projector in [HealthDailyProjector(), HealthAuditProjector()] {
                let report = try await rebuilder.rebuild(projector)
                var rows: [String] = []
                for table in projector.tables {
                    for try await count in try await client.rows("SELECT count(*)::int FROM \(unescaped: table)", logger: logger).decode(Int.self) {
                        rows.append("\(table) \(count)")
                    }
                }
                print(String(format: "health rebuild %@: %lld events in %.1f s; %@", projector.name, report.eventsApplied,
                             seconds(report.elapsed), rows.joined(separator: ", ")))
            }
        }
    }

    /// Sends every body, `width` at a time; answers the time, the highest position and the summed counts.
    func send(_ http: HTTPDriver, token: String, bodies: [String], memory: MemorySampler) async throws -> (Duration, String, String) {
        let started = ContinuousClock.now
        let results = Results()
        let sampling = Task { while !Task.isCancelled { memory.sample(); try? await Task.sleep(for: .milliseconds(500)) } }
        defer { sampling.cancel() }
        try await http.parallel(bodies.count, width: width) { i in
            let (code, body) = try await http.call(.POST, "/api/v1/ingest/health", token: token, json: bodies[i])
            guard code == 200, let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
                throw HTTPDriver.Failure(description: "ingest failed: \(code) \(body.prefix(300))")
            }
            results.add(object)
        }
        return (ContinuousClock.now - started, results.maxPosition, results.describe())
    }

    /// Time until a daily read with `min_position` answers 200.
    func waitForDays(_ http: HTTPDriver, token: String, position: String) async throws -> Duration {
        let started = ContinuousClock.now
        while true {
            let (code, body) = try await http.call(.GET, "/api/v1/health/daily?metrics=steps&min_position=\(position)", token: token, json: nil)
            if code == 200 { return ContinuousClock.now - started }
            guard code == 202 else { throw HTTPDriver.Failure(description: "daily read failed: \(code) \(body.prefix(300))") }
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        private var positions: [(UInt64, Int64)] = []

        func add(_ answer: [String: Any]) {
            lock.withLock {
                for key in ["received", "inserted", "updated", "duplicates", "rejected"] { counts[key, default: 0] += answer[key] as? Int ?? 0 }
                if let text = answer["position"] as? String {
                    let parts = text.split(separator: "/")
                    if parts.count == 2, let tx = UInt64(parts[0]), let global = Int64(parts[1]) { positions.append((tx, global)) }
                }
            }
        }

        var maxPosition: String {
            lock.withLock { positions.max { $0 < $1 }.map { "\($0.0)/\($0.1)" } ?? "0/0" }
        }

        func describe() -> String {
            lock.withLock { ["received", "inserted", "updated", "duplicates", "rejected"].map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", ") }
        }
    }

    /// CPU seconds spent between laps: the server's own (from /proc/<pid>/stat) and the whole
    /// machine's busy time (from /proc/stat: the server, PostgreSQL and this tool). The first
    /// pass is CPU-bound on two cores, so these move less from hour to hour than its wall time.
    struct CPUMeter {
        let pid: Int32?
        var last: (server: Double?, machine: Double?)

        init(pid: Int32?) {
            self.pid = pid
            last = (Self.server(pid), Self.machine())
        }

        /// Jiffies are 1/100 s on Linux (`USER_HZ`).
        static func server(_ pid: Int32?) -> Double? {
            guard let pid, let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return nil }
            // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            return (user + system) / 100
        }

        static func machine() -> Double? {
            guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
                  let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
            let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            guard values.count >= 8 else { return nil }
            // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
            return (values[0] + values[1] + values[2] + values[5] + values[6] + values[7]) / 100
        }

        mutating func lap() -> String {
            let now = (Self.server(pid), Self.machine())
            defer { last = now }
            let server = zip2(now.0, last.server).map { String(format: "server %.1f s", $0 - $1) } ?? "server unknown (no --server-pid)"
            let machine = zip2(now.1, last.machine).map { String(format: "machine busy %.1f s", $0 - $1) } ?? "machine unknown"
            return "\(server), \(machine)"
        }

        private func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
            guard let a, let b else { return nil }
            return (a, b)
        }
    }

    /// The server's resident memory, sampled (from /proc; nothing when no pid was given).
    final class MemorySampler: @unchecked Sendable {
        let pid: Int32?
        private let lock = NSLock()
        private var samples: [Double] = []

        init(pid: Int32?) { self.pid = pid }

        func current() -> Double? {
            guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                  let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
            return kib / 1024
        }

        func sample() {
            guard let value = current() else { return }
            lock.withLock { samples.append(value) }
        }

        func describeNow() -> String { current().map { String(format: "%.0f MiB", $0) } ?? "unknown" }

        func describe() -> String {
            lock.withLock {
                guard let peak = samples.max(), let last = samples.last else { return "unknown (no --server-pid)" }
                return String(format: "peak %.0f MiB, last %.0f MiB over %d samples", peak, last, samples.count)
            }
        }
    }
}
