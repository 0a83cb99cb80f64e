import API
import AsyncHTTPClient
import Core
import Domain
import EventStore
import Foundation
import Logging
import NIOHTTP1
import PostgresNIO
import Projections
import Synchronization

/// Issue 10's history that grows: a user with 200 habits and ten years of logs, read over HTTP
/// at 20 requests/s. The habits are created over HTTP; their half a million logs are appended
/// through the event store with the inline projectors (the events and read-model rows a log
/// request writes), 365 to a transaction, since half a million HTTP requests would take the
/// benchmark most of an hour.
struct HabitHistoryLoad {
    let http: HTTPDriver
    let options: Options
    var habits = 200
    var years = 10
    var rate = 20
    var duration = 20

    func run() async throws {
        let token = try await http.register()
        let (_, me) = try await http.call(.GET, "/api/v1/me", token: token, json: nil)
        guard let userId = http.field(me, "id").flatMap(UUID.init(uuidString:)) else { throw HTTPDriver.Failure(description: "GET /me: \(me)") }

        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "Europe/Belgrade")
        guard let today = LocalDate(formatter.string(from: Date())) else { throw HTTPDriver.Failure(description: "today") }
        let habitIds = try await Self.seed(http: http, options: options, token: token, userId: userId, habits: habits, years: years, today: today)
        let url = try options.url()
        try await PostgresClient.withRunning(url.clientConfiguration(role: "lifelog_app", maximumConnections: 6), logger: options.logger) { client in
            let store = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), hook: InlineProjections(projectors: AreaCatalog.projectors), logger: options.logger)
            try await Settle.database(options.databaseURL, logger: options.logger)
            try await measure(token: token, habitIds: habitIds, today: today) {
                // Another instance's writes: one log per habit appended past this server, so
                // every habit's version moves and its cached logs are stale.
                try await http.parallel(habitIds.count, width: 4) { index in
                    let habitId = habitIds[index]
                    let event = NewEvent(type: HabitEvent.Logged.type, data: try EventCoding.encode(HabitEvent.Logged(habitId: habitId, date: today, value: 1)),
                                         metadata: EventMetadata(actor: "user:\(userId.uuidString.lowercased())"))
                    try await store.append(to: StreamName(id: HabitEvent.streamId(habitId), ownerId: userId, type: HabitEvent.streamType),
                                           expected: .any, events: [event])
                }
            }
        }
    }

    /// Creates `habits` habits over HTTP starting `years` years before `today`, and appends their
    /// logs (seven days in ten) through the event store with the inline projectors.
    static func seed(http: HTTPDriver, options: Options, token: String, userId: UUID, habits: Int, years: Int, today: LocalDate,
                     name: String = "Long habit") async throws -> [UUID] {
        let start = today.adding(days: -365 * years)
        let days = (0..<(365 * years)).map { start.adding(days: $0) }
        print("seeding \(habits) habits with \(years) years of logs (the history that grows) ...")
        let seedStarted = ContinuousClock.now
        let ids = Mutex<[Int: UUID]>([:])
        try await http.parallel(habits, width: 8) { n in
            let kind = n % 6 == 5 ? #""kind":"numeric","target":8,"unit":"glasses""# : #""kind":"boolean""#
            let id = try await http.create("/api/v1/habits", token: token,
                json: #"{"name":"\#(name) \#(n)",\#(kind),"schedule":\#(HTTPLoad.scheduleMix[n % HTTPLoad.scheduleMix.count]),"start_date":"\#(start)"}"#)
            guard let uuid = UUID(uuidString: id) else { throw HTTPDriver.Failure(description: "habit id \(id)") }
            ids.withLock { $0[n] = uuid }
        }
        let habitIds = ids.withLock { dict in (0..<habits).compactMap { dict[$0] } }
        let logged = Mutex(0)
        let url = try options.url()
        try await PostgresClient.withRunning(url.clientConfiguration(role: "lifelog_app", maximumConnections: 6), logger: options.logger) { client in
            let store = PostgresEventStore(client: client, keyring: try BenchKeys.keyring(), hook: InlineProjections(projectors: AreaCatalog.projectors), logger: options.logger)
            try await http.parallel(habitIds.count, width: 4) { index in
                let habitId = habitIds[index]
                let numeric = index % 6 == 5
                // On seven days in ten, as the 30-habit user.
                let dates = days.enumerated().filter { ($0.offset * 7 + index) % 10 < 7 }.map(\.element)
                let stream = StreamName(id: HabitEvent.streamId(habitId), ownerId: userId, type: HabitEvent.streamType)
                for chunk in stride(from: 0, to: dates.count, by: 365) {
                    let events = try dates[chunk..<min(chunk + 365, dates.count)].map { date in
                        NewEvent(type: HabitEvent.Logged.type, data: try EventCoding.encode(HabitEvent.Logged(habitId: habitId, date: date, value: numeric ? 8 : 1)),
                                 metadata: EventMetadata(actor: "user:\(userId.uuidString.lowercased())"))
                    }
                    try await store.append(to: stream, expected: .any, events: events)
                }
                logged.withLock { $0 += dates.count }
            }
        }
        print(String(format: "seeded %d habits with %d logs over %d days in %.0f s", habitIds.count, logged.withLock { $0 }, days.count,
                     seconds(ContinuousClock.now - seedStarted)))
        return habitIds
    }

    /// The reads, once the history is stored; `invalidate` moves every habit's version past the server.
    func measure(token: String, habitIds: [UUID], today: LocalDate, invalidate: () async throws -> Void) async throws {
        // The first reads after the seed find every habit's version moved: they read the logs of
        // the habits on their page and walk their calendars.
        for label in ["first", "second"] {
            let started = ContinuousClock.now
            let (code, _) = try await http.call(.GET, "/api/v1/habits?limit=100", token: token, json: nil)
            print(String(format: "http GET /api/v1/habits?limit=100 (%d habits × %d years), %@ request after the seed: %.1f ms, status %d",
                         habits, years, label, seconds(ContinuousClock.now - started) * 1000, code))
        }
        let numericHabit = habitIds[5 % habitIds.count]
        let scenarios: [(String, @Sendable (Int) -> (HTTPMethod, String, String?))] = [
            ("GET /api/v1/habits (\(habits) habits × \(years) years, first page of 50)", { _ in (.GET, "/api/v1/habits", nil) }),
            ("GET /api/v1/habits?limit=100 (\(habits) habits × \(years) years)", { _ in (.GET, "/api/v1/habits?limit=100", nil) }),
            ("GET /api/v1/today (\(habits) habits × \(years) years)", { _ in (.GET, "/api/v1/today", nil) }),
            ("POST /api/v1/habits/{id}/logs (\(years) years of logs)", { _ in (.POST, "/api/v1/habits/\(numericHabit)/logs", #"{"value":1}"#) }),
            // A different past day per request: no derived state is cached, so each request walks
            // 50 habits' calendars from their start. What a new day costs, once per habit.
            ("GET /api/v1/habits?date=<another day each request> (states not cached)", { n in
                (.GET, "/api/v1/habits?date=\(today.adding(days: -(n + 52)))", nil)
            }),
        ]
        for (name, request) in scenarios {
            try await http.openLoop(name, rate: rate, duration: duration, token: token, request)
        }

        // Ten requests at once, all finding every habit changed: do they read the logs ten times?
        try await invalidate()
        let started = ContinuousClock.now
        let finished = Mutex<[Double]>([])
        try await http.parallel(10, width: 10) { _ in
            let (code, _) = try await http.call(.GET, "/api/v1/habits?limit=100", token: token, json: nil)
            guard code == 200 else { throw HTTPDriver.Failure(description: "GET /habits: \(code)") }
            finished.withLock { $0.append(seconds(ContinuousClock.now - started) * 1000) }
        }
        let times = finished.withLock { $0.sorted() }
        print(String(format: "http GET /api/v1/habits?limit=100, ten at once after every habit changed elsewhere: first answered %.1f ms, last %.1f ms",
                     times.first ?? 0, times.last ?? 0))
    }
}
