import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Habits and tasks over HTTP at a fixed request rate (open loop: each request is sent on its
/// schedule, whatever the previous ones are doing, and its latency counts from that schedule).
struct HTTPLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http", abstract: "GET /habits, GET /tasks?filter=today and POST /habits/{id}/logs at a fixed rate.")

    @Option(help: "The running server.") var baseURL = "http://127.0.0.1:8089"
    @Option(help: "Requests per second.") var rate = 100
    @Option(help: "Seconds per scenario.") var duration = 20
    @Option(help: "Habits to seed.") var habits = 30
    @Option(help: "Days of logs to seed.") var days = 730
    @Option(help: "Tasks to seed.") var tasks = 5_000

    func run() async throws {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(30)))
        // Enough connections that the load tool never queues requests itself.
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await load(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    func call(_ client: HTTPClient, _ method: HTTPMethod, _ path: String, token: String?, json: String?) async throws -> (UInt, String) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
        return (response.status.code, String(buffer: body))
    }

    func field(_ json: String, _ key: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?[key] as? String
    }

    /// Runs `work` for items with `width` in flight.
    func parallel(_ count: Int, width: Int, _ work: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(width, count) { let i = next; group.addTask { try await work(i) }; next += 1 }
            while try await group.next() != nil, next < count { let i = next; group.addTask { try await work(i) }; next += 1 }
            try await group.waitForAll()
        }
    }

    func load(_ client: HTTPClient) async throws {
        let email = "bench-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let (status, body) = try await call(client, .POST, "/api/v1/auth/register", token: nil,
            json: #"{"email":"\#(email)","password":"synthetic benchmark password","name":"Bench","timezone":"Europe/Belgrade"}"#)
        guard status == 201, let token = field(body, "access_token") else { throw Failure(description: "register failed: \(status) \(body)") }

        let start = Calendar(identifier: .gregorian).date(byAdding: .day, value: -days, to: Date()) ?? Date()
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "Europe/Belgrade")
        let startDate = formatter.string(from: start)
        let schedules = [#"{"type":"daily"}"#, #"{"type":"weekdays","days":[1,3,5]}"#, #"{"type":"times_per_week","count":3}"#,
                         #"{"type":"every_n_days","n":2}"#, #"{"type":"monthly","day":31}"#]
        print("seeding \(habits) habits with \(days) days of logs and \(tasks) tasks ...")
        let seedStarted = ContinuousClock.now
        var habitIds: [String] = []
        for n in 0..<habits {
            let kind = n % 6 == 5 ? #""kind":"numeric","target":8,"unit":"glasses""# : #""kind":"boolean""#
            let (code, created) = try await call(client, .POST, "/api/v1/habits", token: token,
                json: #"{"name":"Habit \#(n)",\#(kind),"schedule":\#(schedules[n % schedules.count]),"start_date":"\#(startDate)"}"#)
            guard code == 201, let id = field(created, "id") else { throw Failure(description: "habit create failed: \(code) \(created)") }
            habitIds.append(id)
        }
        let dates = (0..<days).map { formatter.string(from: Calendar(identifier: .gregorian).date(byAdding: .day, value: $0, to: start) ?? start) }
        let logs = habitIds.enumerated().flatMap { index, id in
            dates.enumerated().filter { ($0.offset * 7 + index) % 10 < 7 }.map { (id, $0.element, index % 6 == 5) }
        }
        let seedLogs = logs
        try await parallel(seedLogs.count, width: 8) { i in
            let (id, date, numeric) = seedLogs[i]
            _ = try await call(client, .POST, "/api/v1/habits/\(id)/logs", token: token,
                               json: numeric ? #"{"date":"\#(date)","value":8}"# : #"{"date":"\#(date)"}"#)
        }
        let today = formatter.string(from: Date())
        try await parallel(tasks, width: 8) { i in
            let due = i % 3 == 0 ? "" : #","due_date":"\#(dates[(i * 37) % dates.count])""#
            let dueToday = i % 50 == 0 ? #","due_date":"\#(today)""# : due
            _ = try await call(client, .POST, "/api/v1/tasks", token: token,
                               json: #"{"title":"Task \#(i)","priority":\#(i % 3 + 1)\#(dueToday)}"#)
        }
        print(String(format: "seeded %d habit logs and %d tasks in %.0f s", logs.count, tasks, seconds(ContinuousClock.now - seedStarted)))

        let numeric = habitIds[5 % habitIds.count]
        let scenarios: [(String, HTTPMethod, String, String?)] = [
            ("GET /api/v1/habits", .GET, "/api/v1/habits", nil),
            ("GET /api/v1/tasks?filter=today", .GET, "/api/v1/tasks?filter=today", nil),
            ("POST /api/v1/habits/{id}/logs", .POST, "/api/v1/habits/\(numeric)/logs", #"{"value":1}"#),
        ]
        for (name, method, path, json) in scenarios {
            for _ in 0..<50 { _ = try await call(client, method, path, token: token, json: json) }  // warm-up
            let total = rate * duration
            let interval = Duration.seconds(1) / rate
            let clock = ContinuousClock()
            let begin = clock.now
            let results = try await withThrowingTaskGroup(of: (Double, UInt).self) { group in
                for n in 0..<total {
                    let scheduled = begin.advanced(by: interval * n)
                    try await clock.sleep(until: scheduled)
                    group.addTask {
                        let (code, _) = try await call(client, method, path, token: token, json: json)
                        return (seconds(clock.now - scheduled) * 1000, code)
                    }
                }
                return try await group.reduce(into: [(Double, UInt)]()) { $0.append($1) }
            }
            let latencies = results.map(\.0).sorted()
            let errors = results.filter { !(200..<300).contains($0.1) }.count
            print(String(format: "http %@: %d requests at %d/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d non-2xx",
                         name, total, rate, percentile(latencies, 0.5), percentile(latencies, 0.99), latencies.last ?? 0, errors))
        }
    }
}
