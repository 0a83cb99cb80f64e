import API
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `GET /api/v1/export` (issue 29): everything a user owns as NDJSON, in the API's own field
/// names, nothing of anyone else's, no secret, and a last line that says the file is whole.
@Suite struct ExportTests {
    typealias Line = [String: Any]

    static func lines(_ text: String) throws -> [Line] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? Line, "\(line)")
        }
    }

    static func of(_ type: String, _ lines: [Line]) -> [Line] { lines.filter { $0["type"] as? String == type } }

    @Test func exportHoldsEveryAreaInTheAPIsNamesAndNothingElse() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("export@example.com").string("access_token"))
            func call(_ method: HTTPRequest.Method, _ path: String, _ json: String? = nil) async throws -> JSONResponse {
                let answer = try await http.call(method, path, token: token, json: json)
                #expect(answer.status.code < 300, "\(path): \(answer.text)")
                return answer
            }
            let habit = try #require(try await call(.post, "/api/v1/habits",
                #"{"name":"Water <b>","kind":"numeric","target":8,"unit":"glasses","schedule":{"type":"daily"},"start_date":"2026-02-01"}"#).string("id"))
            _ = try await call(.post, "/api/v1/habits/\(habit)/logs", #"{"date":"2026-03-09","value":6.5}"#)
            _ = try await call(.post, "/api/v1/habits/\(habit)/freezes", #"{"from":"2026-03-01","to":"2026-03-02","reason":"ill"}"#)
            let task = try #require(try await call(.post, "/api/v1/tasks",
                #"{"title":"Pay rent","due_date":"2026-03-09","repeat":{"every":"month"}}"#).string("id"))
            _ = try await call(.post, "/api/v1/tasks/\(task)/complete")
            let food = try #require(try await call(.post, "/api/v1/finance/categories", #"{"name":"Food","kind":"expense"}"#).string("id"))
            _ = try await call(.put, "/api/v1/finance/categories/\(food)/budget", #"{"amount":"300.00","currency":"EUR","from_month":"2026-03"}"#)
            _ = try await call(.post, "/api/v1/finance/transactions",
                #"{"kind":"expense","amount":"12.30","currency":"EUR","date":"2026-03-02","category_id":"\#(food)","note":"market"}"#)
            _ = try await call(.post, "/api/v1/finance/transactions", #"{"kind":"income","amount":"1500","currency":"JPY","date":"2026-03-03"}"#)
            let goal = try #require(try await call(.post, "/api/v1/savings/goals", #"{"name":"Trip","currency":"KWD","target_amount":"100.250"}"#).string("id"))
            _ = try await call(.put, "/api/v1/savings/goals/\(goal)/plan", #"{"amount":"10","anchor_day":1,"start_month":"2026-01"}"#)
            _ = try await call(.post, "/api/v1/savings/goals/\(goal)/transactions", #"{"kind":"deposit","amount":"10.5","date":"2026-03-01"}"#)
            let batch = try await call(.post, "/api/v1/ingest/health", HealthIngestionTests.batch(
                samples: [HealthIngestionTests.sample("heart_rate", 58.5, "2026-03-09T07:00:00Z", "2026-03-09T07:00:00Z", source: "Watch", kind: "watch")],
                sleep: [#"{"stage":"deep","start":"2026-03-09T01:00:00Z","end":"2026-03-09T02:00:00Z","source":{"name":"Ring","kind":"ring"}}"#],
                workouts: [#"{"type":"running","start":"2026-03-09T07:00:30Z","end":"2026-03-09T07:31:00Z","active_energy_kcal":250,"source":{"name":"iPhone","kind":"phone"}}"#]))
            _ = try await call(.put, "/api/v1/health/manual/body_mass/2026-03-08", #"{"value":71.4}"#)
            _ = try await call(.put, "/api/v1/health/checkins/2026-03-09", #"{"feeling":4,"note":"fine"}"#)
            let hook = try await call(.post, "/api/v1/webhooks", #"{"url":"https://hooks.example.com/a","events":["task.completed"]}"#)
            let device = try await call(.post, "/api/v1/devices", #"{"name":"Watch","kind":"watch"}"#)
            // Someone else's data never shows.
            let other = try #require(try await http.register("other@example.com").string("access_token"))
            _ = try await http.call(.post, "/api/v1/habits", token: other, json: #"{"name":"Other's secret habit","kind":"boolean","schedule":{"type":"daily"}}"#)
            // The health figures are async: wait for this batch in the day figures.
            let position = try #require(batch.string("position"))
            #expect(try await http.call(.get, "/api/v1/health/daily?from=2026-03-09&to=2026-03-09&min_position=\(position)", token: token).status == .ok)

            let answer = try await http.call(.get, "/api/v1/export", token: token)
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/x-ndjson")
            #expect(answer.headers[.contentDisposition] == #"attachment; filename="lifelog-export-2026-03-10.ndjson""#)
            let lines = try Self.lines(answer.text)
            let header = try #require(lines.first)
            #expect(header["format"] as? String == "lifelog-export" && header["version"] as? Int == 1)
            #expect(header["exported_at"] as? String == "2026-03-10T12:00:00Z")
            let end = try #require(lines.last)
            #expect(end["type"] as? String == "end" && end["lines"] as? Int == lines.count - 2)

            #expect(Self.of("profile", lines).first?["email"] as? String == "export@example.com")
            #expect(Self.of("reminder_settings", lines).count == 1)
            let habitLine = try #require(Self.of("habit", lines).first)
            #expect(habitLine["id"] as? String == habit && habitLine["name"] as? String == "Water <b>" && habitLine["kind"] as? String == "numeric")
            #expect((habitLine["schedule"] as? [String: Any])?["type"] as? String == "daily" && habitLine["start_date"] is String)
            let log = try #require(Self.of("habit_log", lines).first)
            #expect(log["habit_id"] as? String == habit && log["date"] as? String == "2026-03-09" && log["value"] as? Double == 6.5)
            #expect(Self.of("freeze", lines).first?["reason"] as? String == "ill")
            let tasks = Self.of("task", lines)
            #expect(tasks.contains { $0["id"] as? String == task && $0["completed"] as? Bool == true && $0["completed_at"] as? String == "2026-03-10T12:00:00Z" })
            #expect(tasks.contains { $0["completed"] as? Bool == false && $0["due_date"] as? String == "2026-04-09" }, "the next repeat")
            #expect(Self.of("finance_category", lines).first?["name"] as? String == "Food")
            let budget = try #require(Self.of("budget", lines).first)
            #expect(budget["amount"] as? String == "300.00" && budget["currency"] as? String == "EUR" && budget["from_month"] as? String == "2026-03-01")
            let transactions = Self.of("transaction", lines)
            #expect(transactions.map { $0["amount"] as? String } == ["12.30", "1500"], "exact, with each currency's digits")
            #expect(transactions.first?["category_id"] as? String == food && transactions.first?["note"] as? String == "market")
            #expect(Self.of("savings_goal", lines).first?["target_amount"] as? String == "100.250")
            #expect(Self.of("plan", lines).first?["amount"] as? String == "10.000")
            let movement = try #require(Self.of("savings_movement", lines).first)
            #expect(movement["amount"] as? String == "10.500" && movement["goal_id"] as? String == goal && movement["kind"] as? String == "deposit")
            let sample = try #require(Self.of("health_sample", lines).first)
            #expect(sample["metric"] as? String == "heart_rate" && sample["value"] as? Double == 58.5 && sample["start"] as? String == "2026-03-09T07:00:00Z")
            #expect(sample["source"] as? String == "Watch" && sample["date"] as? String == "2026-03-09")
            #expect(Self.of("sleep_segment", lines).first?["stage"] as? String == "deep")
            #expect(Self.of("workout", lines).first?["active_energy_kcal"] as? Double == 250)
            #expect(Self.of("manual_value", lines).first?["value"] as? Double == 71.4)
            #expect(Self.of("daily_summary", lines).contains { $0["metric"] as? String == "heart_rate" && $0["value"] as? Double == 58.5 })
            #expect(Self.of("checkin", lines).first?["note"] as? String == "fine")
            #expect(Self.of("webhook", lines).first?["url"] as? String == "https://hooks.example.com/a")
            #expect(Self.of("device", lines).first?["name"] as? String == "Watch")
            // Nothing secret and nothing of the other user's.
            for secret in [hook.string("secret"), device.string("api_key")].compactMap({ $0 }) {
                #expect(!answer.text.contains(secret))
            }
            #expect(!answer.text.contains("secret") && !answer.text.contains("api_key") && !answer.text.contains("password"))
            #expect(!answer.text.contains("Other's secret habit") && !answer.text.contains("other@example.com"))
            let types = Set(lines.dropFirst().dropLast().compactMap { $0["type"] as? String })
            #expect(types.isSuperset(of: ["profile", "reminder_settings", "device", "webhook", "habit", "habit_log", "freeze", "task",
                                          "finance_category", "budget", "transaction", "savings_goal", "plan", "savings_movement",
                                          "health_sample", "sleep_segment", "workout", "manual_value", "daily_summary", "checkin"]), "\(types)")

            #expect(try await http.call(.get, "/api/v1/export").status == .unauthorized)
        }
    }

    @Test func anEmptyAccountExportsItsProfileAndAnEndLine() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now) { _, http in
            let token = try #require(try await http.register("empty@example.com").string("access_token"))
            let lines = try Self.lines(try await http.call(.get, "/api/v1/export", token: token).text)
            #expect(lines.compactMap { $0["type"] as? String } == ["profile", "reminder_settings", "end"])
            #expect(lines.last?["lines"] as? Int == 2)
        }
    }
}
