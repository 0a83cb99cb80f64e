import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Habits and tasks over HTTP at a fixed request rate (open loop: each request is sent on its
/// schedule, whatever the previous ones are doing, and its latency counts from that schedule).
struct HTTPLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http", abstract: "GET /habits, GET /tasks?filter=today, GET /today and POST /habits/{id}/logs at a fixed rate, then the same for a user with 200 habits and ten years of logs.")

    @Option(help: "The running server.") var baseURL = "http://127.0.0.1:8089"
    @OptionGroup var options: Options
    @Option(help: "Requests per second.") var rate = 100
    @Option(help: "Seconds per scenario.") var duration = 20
    @Option(help: "Habits to seed.") var habits = 30
    @Option(help: "Days of logs to seed.") var days = 730
    @Option(help: "Tasks to seed.") var tasks = 5_000
    @Option(help: "Habits of the user with a long history (0: none).") var historyHabits = 200
    @Option(help: "Years of logs of the user with a long history.") var historyYears = 10
    @Option(help: "Requests per second for the user with a long history.") var historyRate = 20

    /// The schedules the seeded habits take in turn (one in six is also numeric).
    static let scheduleMix = [#"{"type":"daily"}"#, #"{"type":"weekdays","days":[1,3,5]}"#, #"{"type":"times_per_week","count":3}"#,
                         #"{"type":"every_n_days","n":2}"#, #"{"type":"monthly","day":31}"#]

    func run() async throws {
        try await HTTPDriver.with(baseURL: baseURL, load)
    }

    func load(_ http: HTTPDriver) async throws {
        let token = try await http.register()
        try await http.openLoop("GET /healthz (the floor: server and load tool alone)", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/healthz", nil)
        }

        let start = Calendar(identifier: .gregorian).date(byAdding: .day, value: -days, to: Date()) ?? Date()
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "Europe/Belgrade")
        let startDate = formatter.string(from: start)
        print("seeding \(habits) habits with \(days) days of logs and \(tasks) tasks ...")
        let seedStarted = ContinuousClock.now
        var habitIds: [String] = []
        for n in 0..<habits {
            let kind = n % 6 == 5 ? #""kind":"numeric","target":8,"unit":"glasses""# : #""kind":"boolean""#
            habitIds.append(try await http.create("/api/v1/habits", token: token,
                json: #"{"name":"Habit \#(n)",\#(kind),"schedule":\#(Self.scheduleMix[n % Self.scheduleMix.count]),"start_date":"\#(startDate)"}"#))
        }
        let dates = (0..<days).map { formatter.string(from: Calendar(identifier: .gregorian).date(byAdding: .day, value: $0, to: start) ?? start) }
        let logs = habitIds.enumerated().flatMap { index, id in
            dates.enumerated().filter { ($0.offset * 7 + index) % 10 < 7 }.map { (id, $0.element, index % 6 == 5) }
        }
        let seedLogs = logs
        try await http.parallel(seedLogs.count, width: 8) { i in
            let (id, date, numeric) = seedLogs[i]
            _ = try await http.call(.POST, "/api/v1/habits/\(id)/logs", token: token,
                               json: numeric ? #"{"date":"\#(date)","value":8}"# : #"{"date":"\#(date)"}"#)
        }
        let today = formatter.string(from: Date())
        try await http.parallel(tasks, width: 8) { i in
            let due = i % 3 == 0 ? "" : #","due_date":"\#(dates[(i * 37) % dates.count])""#
            let dueToday = i % 50 == 0 ? #","due_date":"\#(today)""# : due
            _ = try await http.call(.POST, "/api/v1/tasks", token: token,
                               json: #"{"title":"Task \#(i)","priority":\#(i % 3 + 1)\#(dueToday)}"#)
        }
        print(String(format: "seeded %d habit logs and %d tasks in %.0f s", logs.count, tasks, seconds(ContinuousClock.now - seedStarted)))
        try await Settle.database(options.databaseURL, logger: options.logger)

        let numeric = habitIds[5 % habitIds.count]
        let scenarios: [(String, HTTPMethod, String, String?)] = [
            ("GET /api/v1/habits", .GET, "/api/v1/habits", nil),
            ("GET /api/v1/tasks?filter=today", .GET, "/api/v1/tasks?filter=today", nil),
            // Today reads habits, tasks, savings, finance, health and reminders at once: this user's
            // habits and tasks; `bench/run money` measures it for a user with finance and savings.
            ("GET /api/v1/today (habits and tasks)", .GET, "/api/v1/today", nil),
            ("POST /api/v1/habits/{id}/logs", .POST, "/api/v1/habits/\(numeric)/logs", #"{"value":1}"#),
        ]
        for (name, method, path, json) in scenarios {
            try await http.openLoop(name, rate: rate, duration: duration, token: token) { _ in (method, path, json) }
        }
        if historyHabits > 0 {
            try await HabitHistoryLoad(http: http, options: options, habits: historyHabits, years: historyYears, rate: historyRate, duration: duration).run()
        }
    }
}
