import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct HabitRoutesTests {
    static func at(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    func create(_ http: any TestClientProtocol, _ token: String, _ json: String) async throws -> String {
        let created = try await http.call(.post, "/api/v1/habits", token: token, json: json)
        #expect(created.status == .created, "\(created.text)")
        return created.string("id") ?? ""
    }

    @Test func logAndReadTodaysStateAndStreaks() async throws {
        // 2026-05-06 12:00 in Belgrade (UTC+2).
        try await AppHarness.with(now: Self.at("2026-05-06T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("habits@example.com").string("access_token"))
            let id = try await create(http, token, #"{"name":"Read","emoji":"📚","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-05-01"}"#)
            for day in ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05"] {
                let logged = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"\#(day)"}"#)
                #expect(logged.status == .created)
            }
            let list = try await http.call(.get, "/api/v1/habits", token: token)
            let habit = try #require((list.object["items"] as? [[String: Any]])?.first)
            #expect(habit["current_streak"] as? Int == 5)
            #expect(habit["due_today"] as? Bool == true)
            #expect(habit["completed_today"] as? Bool == false)
            #expect(habit["date"] as? String == "2026-05-06")
            #expect(habit["next_due_date"] as? String == "2026-05-06")
            #expect(habit["completion_rate_30d"] as? Double == 1)  // 5 of 5 closed days; today is pending

            // Logging today answers with the new state; twice is a no-op.
            let today = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: "{}")
            #expect(today.object["completed_today"] as? Bool == true)
            #expect(today.object["current_streak"] as? Int == 6)
            let again = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: "{}")
            #expect(again.object["current_streak"] as? Int == 6)
            // Even at once: a boolean day is done once, never "done twice".
            #expect(try await http.call(.delete, "/api/v1/habits/\(id)/logs/2026-05-05", token: token).status == .ok)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"2026-05-05"}"#) }
                }
                try await group.waitForAll()
            }
            let fifth = try await http.call(.get, "/api/v1/habits/\(id)/logs?from=2026-05-05&to=2026-05-05", token: token)
            #expect((fifth.object["items"] as? [[String: Any]])?.first?["value"] as? Double == 1)
            let logs = try await http.call(.get, "/api/v1/habits/\(id)/logs?from=2026-05-01&to=2026-05-06", token: token)
            #expect((logs.object["items"] as? [Any])?.count == 6)

            let future = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"2026-05-07"}"#)
            #expect(future.status == .unprocessableContent)
            let early = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"2026-04-30"}"#)
            #expect(early.status == .unprocessableContent)

            // Removing a day's log recomputes the streak.
            let removed = try await http.call(.delete, "/api/v1/habits/\(id)/logs/2026-05-03", token: token)
            #expect(removed.object["current_streak"] as? Int == 3)
            #expect(removed.object["best_streak"] as? Int == 3)
        }
    }

    /// Reads walk a habit's calendar from its start to the day asked about: dates far outside
    /// a ten-year past and one-year future window are refused before they can cost minutes.
    @Test func datesFarFromTodayAreRefusedAndChangeNothing() async throws {
        try await AppHarness.with(now: Self.at("2026-05-06T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("window@example.com").string("access_token"))
            for start in ["0001-01-01", "2015-12-31", "2027-05-08"] {
                let refused = try await http.call(.post, "/api/v1/habits", token: token,
                    json: #"{"name":"Old","kind":"boolean","schedule":{"type":"daily"},"start_date":"\#(start)"}"#)
                #expect(refused.status == .unprocessableContent, "\(start)")
                #expect(refused.text.contains("start_date"), "\(start)")
            }
            let empty = try await http.call(.get, "/api/v1/habits", token: token)
            #expect((empty.object["items"] as? [Any])?.isEmpty == true)

            let id = try await create(http, token, #"{"name":"Long kept","kind":"boolean","schedule":{"type":"daily"},"start_date":"2016-01-01"}"#)
            let far = try await http.call(.get, "/api/v1/habits?date=4151-01-01", token: token)
            #expect(far.status == .unprocessableContent)
            #expect(far.text.contains("2027-05-07"))
            #expect(try await http.call(.get, "/api/v1/habits/\(id)?date=2027-05-08", token: token).status == .unprocessableContent)
            // A date before 1900 is no client date, here as everywhere (issue 24: it was a 200).
            let ancient = try await http.call(.get, "/api/v1/habits?date=1899-12-31", token: token)
            #expect(ancient.status == .unprocessableContent)
            #expect(ancient.fieldErrors == ["date"])
            let planned = try await http.call(.get, "/api/v1/habits/\(id)?date=2027-05-07", token: token)
            #expect(planned.status == .ok)
            #expect(planned.object["due_today"] as? Bool == true)
            let moved = try await http.call(.patch, "/api/v1/habits/\(id)", token: token,
                json: #"{"schedule":{"type":"weekdays","days":[1]},"effective_from":"9999-01-01"}"#)
            #expect(moved.status == .unprocessableContent)
            #expect(moved.text.contains("effective_from"))
            let unchanged = try await http.call(.get, "/api/v1/habits/\(id)", token: token)
            #expect((unchanged.object["schedule"] as? [String: Any])?["type"] as? String == "daily")

            // Amounts are above 0 and at most a billion; decorations are short.
            let water = try await create(http, token, #"{"name":"Water","kind":"numeric","target":2000,"unit":"ml","schedule":{"type":"daily"}}"#)
            for value in ["1000000001", "1.5e128", "-1", "0.0009", "5e-324"] {
                let logged = try await http.call(.post, "/api/v1/habits/\(water)/logs", token: token, json: #"{"value":\#(value)}"#)
                #expect(logged.status == .unprocessableContent, "\(value)")
                #expect(logged.fieldErrors == ["value"], "\(value)")
                // A number is refused for its size, never as "not a whole number" (a Decimal field takes fractions).
                #expect(!logged.text.contains("whole"), "\(value): \(logged.text)")
            }
            #expect(try await http.call(.post, "/api/v1/habits/\(water)/logs", token: token, json: #"{"value":1000000000}"#).status == .created)
            #expect(try await http.call(.post, "/api/v1/habits/\(water)/logs", token: token, json: #"{"value":0.001}"#).status == .created)
            let huge = try await http.call(.post, "/api/v1/habits", token: token,
                json: #"{"name":"Huge","kind":"numeric","target":1e12,"unit":"\#(String(repeating: "m", count: 33))","schedule":{"type":"daily"}}"#)
            #expect(huge.status == .unprocessableContent)
            let fields = Set((huge.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["target", "unit"])
        }
    }

    /// PATCH reads like JSON Merge Patch: null removes a reminder or a decoration, absent keeps it.
    @Test func nullClearsAReminderAndDecorations() async throws {
        try await AppHarness.with(now: Self.at("2026-05-06T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("quiet@example.com").string("access_token"))
            let id = try await create(http, token,
                #"{"name":"Stretch","emoji":"🧘","color":"teal","kind":"boolean","schedule":{"type":"daily"},"reminder_time":"07:15"}"#)
            let quiet = try await http.call(.patch, "/api/v1/habits/\(id)", token: token, json: #"{"reminder_time":null,"emoji":null}"#)
            #expect(quiet.status == .ok)
            #expect(quiet.object["reminder_time"] == nil)
            #expect(quiet.object["emoji"] == nil)
            #expect(quiet.string("color") == "teal")
            #expect(quiet.string("name") == "Stretch")
            let read = try await http.call(.get, "/api/v1/habits/\(id)", token: token)
            #expect(read.object["reminder_time"] == nil)
            #expect(read.string("color") == "teal")
        }
    }

    @Test func dayStartHourMovesTheLogicalDay() async throws {
        // 02:00 on May 2 in Belgrade = 00:00 UTC.
        try await AppHarness.with(now: Self.at("2026-05-02T00:00:00Z")) { harness, http in
            let token = try #require(try await http.register("early@example.com").string("access_token"))
            _ = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"day_start_hour":4}"#)
            let id = try await create(http, token, #"{"name":"Stretch","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-04-20"}"#)
            let logged = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: "{}")
            #expect(logged.object["date"] as? String == "2026-05-01")
            let logs = try await http.call(.get, "/api/v1/habits/\(id)/logs?from=2026-04-30&to=2026-05-02", token: token)
            #expect((logs.object["items"] as? [[String: Any]])?.first?["date"] as? String == "2026-05-01")
        }
    }

    @Test func numericTimesPerWeekFreezesAndArchive() async throws {
        // Wednesday 2026-05-06.
        try await AppHarness.with(now: Self.at("2026-05-06T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("numeric@example.com").string("access_token"))
            let water = try await create(http, token, #"{"name":"Water","kind":"numeric","target":8,"unit":"glasses","schedule":{"type":"daily"}}"#)
            let five = try await http.call(.post, "/api/v1/habits/\(water)/logs", token: token, json: #"{"value":5}"#)
            #expect(five.object["completed_today"] as? Bool == false)
            #expect(five.object["today_value"] as? Double == 5)
            let eight = try await http.call(.post, "/api/v1/habits/\(water)/logs", token: token, json: #"{"value":3}"#)
            #expect(eight.object["completed_today"] as? Bool == true)
            #expect(eight.object["today_value"] as? Double == 8)
            // The answers come from the cached logs carried forward by each appended log; a
            // removal and a fresh read agree with them.
            let removed = try await http.call(.delete, "/api/v1/habits/\(water)/logs/2026-05-06", token: token)
            #expect(removed.object["completed_today"] as? Bool == false)
            #expect((removed.object["today_value"] as? Double ?? 0) == 0, "\(removed.text)")
            let again = try await http.call(.post, "/api/v1/habits/\(water)/logs", token: token, json: #"{"value":8}"#)
            #expect(again.object["today_value"] as? Double == 8)
            #expect(try await http.call(.get, "/api/v1/habits/\(water)", token: token).object["today_value"] as? Double == 8)
            let noValue = try await http.call(.post, "/api/v1/habits/\(water)/logs", token: token, json: "{}")
            #expect(noValue.status == .unprocessableContent)

            let gym = try await create(http, token, #"{"name":"Gym","kind":"boolean","schedule":{"type":"times_per_week","count":3},"start_date":"2026-04-20"}"#)
            for day in ["2026-04-20", "2026-04-22", "2026-04-24", "2026-04-27", "2026-04-28", "2026-04-30", "2026-05-04"] {
                _ = try await http.call(.post, "/api/v1/habits/\(gym)/logs", token: token, json: #"{"date":"\#(day)"}"#)
            }
            let state = try await http.call(.get, "/api/v1/habits/\(gym)", token: token)
            #expect(state.object["current_streak"] as? Int == 2)
            #expect(state.object["due_today"] as? Bool == true)
            let progress = state.object["period_progress"] as? [String: Any]
            #expect(progress?["done"] as? Int == 1)
            #expect(progress?["target"] as? Int == 3)
            #expect(progress?["start"] as? String == "2026-05-04")
            // A past range is judged as of today: the week holding `to` counts its whole week.
            let past = try await http.call(.get, "/api/v1/habits/\(gym)/history?from=2026-04-20&to=2026-04-29", token: token)
            #expect((past.object["items"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String } == ["satisfied", "satisfied"])

            let daily = try await create(http, token, #"{"name":"Walk","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-05-01"}"#)
            for day in ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04"] {
                _ = try await http.call(.post, "/api/v1/habits/\(daily)/logs", token: token, json: #"{"date":"\#(day)"}"#)
            }
            #expect(try await http.call(.get, "/api/v1/habits/\(daily)", token: token).object["current_streak"] as? Int == 0)
            let frozen = try await http.call(.post, "/api/v1/habits/\(daily)/freezes", token: token, json: #"{"from":"2026-05-05","to":"2026-05-05","reason":"ill"}"#)
            #expect(frozen.status == .created)
            #expect((frozen.object["habit"] as? [String: Any])?["current_streak"] as? Int == 4)
            let history = try await http.call(.get, "/api/v1/habits/\(daily)/history?from=2026-04-30&to=2026-05-06", token: token)
            let statuses = (history.object["items"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
            #expect(statuses == ["not_scheduled", "satisfied", "satisfied", "satisfied", "satisfied", "excused", "pending"])

            #expect(try await http.call(.delete, "/api/v1/habits/\(daily)", token: token).status == .noContent)
            let names = (try await http.call(.get, "/api/v1/habits", token: token).object["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names == ["Water", "Gym"])
            // An archived habit is still listed on request, marked, so a person can find it to restore it.
            let withArchived = try await http.call(.get, "/api/v1/habits?include_archived=true", token: token).object["items"] as? [[String: Any]] ?? []
            #expect(withArchived.compactMap { $0["name"] as? String } == ["Water", "Gym", "Walk"])
            #expect(withArchived.compactMap { $0["archived"] as? Bool } == [false, false, true])
            #expect(try await http.call(.get, "/api/v1/habits?include_archived=yes", token: token).status == .unprocessableContent)
            let restored = try await http.call(.post, "/api/v1/habits/\(daily)/restore", token: token)
            #expect(restored.object["archived"] as? Bool == false)
            #expect(restored.object["current_streak"] as? Int == 4)
        }
    }

    @Test func aScheduleChangeAppliesFromItsDateOnAndIfMatchGuardsIt() async throws {
        try await AppHarness.with(now: Self.at("2026-05-13T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("change@example.com").string("access_token"))
            let id = try await create(http, token, #"{"name":"Run","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-05-01"}"#)
            for day in 1...7 { _ = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"2026-05-0\#(day)"}"#) }
            for day in ["2026-05-08", "2026-05-11", "2026-05-13"] {
                _ = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"\#(day)"}"#)
            }
            let version = try #require(try await http.call(.get, "/api/v1/habits/\(id)", token: token).headers[.eTag])
            let changed = try await http.call(.patch, "/api/v1/habits/\(id)", token: token, headers: [.ifMatch: version],
                json: #"{"schedule":{"type":"weekdays","days":[1,3,5]},"effective_from":"2026-05-08"}"#)
            #expect(changed.status == .ok)
            #expect(changed.object["current_streak"] as? Int == 10)
            let stale = try await http.call(.patch, "/api/v1/habits/\(id)", token: token, headers: [.ifMatch: version], json: #"{"name":"Jog"}"#)
            #expect(stale.status == .preconditionFailed)
            let invalid = try await http.call(.post, "/api/v1/habits", token: token, json: #"{"name":"","kind":"numeric","schedule":{"type":"every_n_days","n":1}}"#)
            #expect(invalid.status == .unprocessableContent)
            let fields = Set((invalid.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["name", "target", "schedule.n"])
        }
    }
}

@Suite struct TravelTests {
    /// Logged at 23:00 in Athens (UTC+2), then the user flies to Phoenix (UTC-7), changes their
    /// zone and logs again that evening: the first log keeps its date, nothing is doubled or
    /// skipped, and the next day continues the streak.
    @Test func changingTheZoneNeverMovesStoredDates() async throws {
        try await AppHarness.with(now: HabitRoutesTests.at("2026-01-14T21:00:00Z")) { harness, http in
            let token = try #require(try await http.register("fly@example.com", timezone: "Europe/Athens").string("access_token"))
            let created = try await http.call(.post, "/api/v1/habits", token: token,
                json: #"{"name":"Journal","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-01-12"}"#)
            let id = try #require(created.string("id"))
            for day in ["2026-01-12", "2026-01-13"] {
                _ = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"\#(day)"}"#)
            }
            let athens = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: "{}")
            #expect(athens.object["date"] as? String == "2026-01-14")
            #expect(athens.object["current_streak"] as? Int == 3)

            #expect(try await http.call(.patch, "/api/v1/me", token: token, json: #"{"timezone":"America/Phoenix"}"#).status == .ok)
            harness.clock.advance(by: 6 * 3600)  // 20:00 on Jan 14 in Phoenix
            // Hours later the access token has expired: log in again, as the app would.
            let login = #"{"email":"fly@example.com","password":"correct horse battery"}"#
            let landed = try #require(try await http.call(.post, "/api/v1/auth/login", json: login).string("access_token"))
            let phoenix = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: landed, json: "{}")
            #expect(phoenix.object["date"] as? String == "2026-01-14")
            #expect(phoenix.object["current_streak"] as? Int == 3)

            harness.clock.advance(by: 24 * 3600)
            let tomorrow = try #require(try await http.call(.post, "/api/v1/auth/login", json: login).string("access_token"))
            let next = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: tomorrow, json: "{}")
            #expect(next.object["date"] as? String == "2026-01-15")
            #expect(next.object["current_streak"] as? Int == 4)
            let logs = try await http.call(.get, "/api/v1/habits/\(id)/logs?from=2026-01-10&to=2026-01-16", token: tomorrow)
            #expect((logs.object["items"] as? [[String: Any]] ?? []).compactMap { $0["date"] as? String }
                    == ["2026-01-12", "2026-01-13", "2026-01-14", "2026-01-15"])
        }
    }
}
