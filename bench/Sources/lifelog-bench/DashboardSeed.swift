import ArgumentParser
import Domain
import Foundation

/// Issue 28's dashboard user: 200 habits with ten years of logs, 50 tasks (some due today, some
/// overdue) and a year of health data minute by minute, for `bench/dashboard/measure.py` to load
/// Today in a real browser. Habits go through HTTP and their logs through the event store with
/// the inline projectors (as `HabitHistoryLoad`); tasks and health through HTTP.
struct DashboardSeed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard-seed", abstract: "Seeds the dashboard benchmark's user and prints its email.")

    @Option(help: "The running server.") var baseURL = "http://127.0.0.1:8089"
    @OptionGroup var options: Options
    @Option(help: "The user's email (the password is the benchmarks' synthetic one).") var email = "dashboard@example.com"
    @Option(help: "Habits.") var habits = 200
    @Option(help: "Years of habit logs.") var years = 10
    @Option(help: "Tasks.") var tasks = 50
    @Option(help: "Days of health data.") var healthDays = 365
    @Option(help: "Health samples over those days (about 3,800 a day).") var healthSamples = 1_400_000

    func run() async throws {
        try await HTTPDriver.with(baseURL: baseURL, seed)
    }

    func seed(_ http: HTTPDriver) async throws {
        let token = try await http.register(email: email)
        let (_, me) = try await http.call(.GET, "/api/v1/me", token: token, json: nil)
        guard let userId = http.field(me, "id").flatMap(UUID.init(uuidString:)) else { throw HTTPDriver.Failure(description: "GET /me: \(me)") }
        let (_, todayAnswer) = try await http.call(.GET, "/api/v1/today", token: token, json: nil)
        guard let today = http.field(todayAnswer, "date").flatMap({ LocalDate($0) }) else { throw HTTPDriver.Failure(description: "GET /today") }

        _ = try await HabitHistoryLoad.seed(http: http, options: options, token: token, userId: userId, habits: habits, years: years,
                                            today: today, name: "Habit")
        // A fifth due today, a fifth overdue, the rest later or undated.
        try await http.parallel(tasks, width: 4) { i in
            let due = switch i % 5 {
            case 0: #","due_date":"\#(today)""#
            case 1: #","due_date":"\#(today.adding(days: -(i + 1)))""#
            case 2, 3: #","due_date":"\#(today.adding(days: i + 1))""#
            default: ""
            }
            _ = try await http.create("/api/v1/tasks", token: token, json: #"{"title":"Task \#(i)","priority":\#(i % 3 + 1)\#(due)}"#)
        }
        let started = ContinuousClock.now
        let end = Calendar(identifier: .gregorian).startOfDay(for: Date())
        let bodies = HealthLoad.bodies(samples: healthSamples, batch: 5_000, end: end, days: healthDays)
        try await http.parallel(bodies.count, width: 4) { i in
            let (code, body) = try await http.call(.POST, "/api/v1/ingest/health", token: token, json: bodies[i])
            guard code == 200 else { throw HTTPDriver.Failure(description: "ingest failed: \(code) \(body.prefix(300))") }
        }
        print(String(format: "seeded %d health samples over %d days in %.0f s", healthSamples, healthDays, seconds(ContinuousClock.now - started)))
        try await Settle.database(options.databaseURL, logger: options.logger)
        print("dashboard user: \(email)")
    }
}
