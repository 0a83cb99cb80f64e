import API
@testable import Core
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// `POST /api/v1/import` (issue 29): an export into another account. Export → import into a
/// fresh account → export gives the same lines, the copy's ids and instants aside; again adds
/// nothing; a line that cannot be imported is `line N: reason` and the rest goes in.
@Suite struct ImportTests {
    typealias Line = [String: Any]

    /// A user with something in every area, references between them, and the cases an import
    /// has to carry carefully: a schedule that changed, an archived habit with logs, a monthly
    /// task completed twice (its repeats), an archived category with a transaction and another
    /// active one of the same name, a budget that ended, a plan that ended, a source priority.
    /// Answers the position of its last health write, for a read to wait for the async figures.
    static func seed(_ http: any TestClientProtocol, _ token: String) async throws -> String {
        func call(_ method: HTTPRequest.Method, _ path: String, _ json: String? = nil) async throws -> JSONResponse {
            let answer = try await http.call(method, path, token: token, json: json)
            #expect(answer.status.code < 300, "\(method) \(path): \(answer.text)")
            return answer
        }
        func id(_ answer: JSONResponse) throws -> String { try #require(answer.string("id"), "\(answer.text)") }
        _ = try await call(.patch, "/api/v1/me", #"{"name":"Ana Copy","day_start_hour":4,"week_start":7,"language":"sr","reminders":{"morning_time":"06:45","enabled_kinds":["morning_digest","task_due"]}}"#)
        let water = try id(try await call(.post, "/api/v1/habits",
            #"{"name":"Water","kind":"numeric","target":8,"unit":"glasses","schedule":{"type":"daily"},"start_date":"2026-02-01","color":"blue"}"#))
        _ = try await call(.post, "/api/v1/habits/\(water)/logs", #"{"date":"2026-03-09","value":6.5}"#)
        _ = try await call(.post, "/api/v1/habits/\(water)/logs", #"{"date":"2026-03-08","value":0.1}"#)
        _ = try await call(.post, "/api/v1/habits/\(water)/freezes", #"{"from":"2026-03-01","to":"2026-03-02","reason":"ill"}"#)
        let stretch = try id(try await call(.post, "/api/v1/habits",
            #"{"name":"Stretch","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-02-20","reminder_time":"07:30"}"#))
        for day in ["2026-03-01", "2026-03-02", "2026-03-06"] { _ = try await call(.post, "/api/v1/habits/\(stretch)/logs", #"{"date":"\#(day)"}"#) }
        _ = try await call(.patch, "/api/v1/habits/\(stretch)", #"{"schedule":{"type":"times_per_week","count":3},"effective_from":"2026-03-05"}"#)
        _ = try await call(.delete, "/api/v1/habits/\(stretch)")
        let rent = try id(try await call(.post, "/api/v1/tasks", #"{"title":"Pay rent","due_date":"2026-01-31","repeat":{"every":"month"},"priority":3}"#))
        _ = try await call(.post, "/api/v1/tasks", #"{"title":"Buy milk","notes":"oat","due_date":"2026-03-11","due_time":"18:00"}"#)
        let second = try #require(try await call(.post, "/api/v1/tasks/\(rent)/complete").string("next_task_id"))
        _ = try await call(.patch, "/api/v1/tasks/\(second)", #"{"notes":"by card"}"#)
        _ = try await call(.post, "/api/v1/tasks/\(second)/complete")
        let old = try id(try await call(.post, "/api/v1/finance/categories", #"{"name":"Food","kind":"expense","emoji":"🥕"}"#))
        _ = try await call(.post, "/api/v1/finance/transactions", #"{"kind":"expense","amount":"7.05","currency":"EUR","date":"2026-01-05","category_id":"\#(old)"}"#)
        _ = try await call(.delete, "/api/v1/finance/categories/\(old)")
        let food = try id(try await call(.post, "/api/v1/finance/categories", #"{"name":"Food","kind":"expense"}"#))
        let salary = try id(try await call(.post, "/api/v1/finance/categories", #"{"name":"Salary","kind":"income","color":"green"}"#))
        _ = try await call(.put, "/api/v1/finance/categories/\(food)/budget", #"{"amount":"300.00","currency":"EUR","from_month":"2026-02"}"#)
        _ = try await call(.delete, "/api/v1/finance/categories/\(food)/budget?from_month=2026-04")
        _ = try await call(.post, "/api/v1/finance/transactions", #"{"kind":"expense","amount":"12.30","currency":"EUR","date":"2026-03-02","category_id":"\#(food)","note":"market"}"#)
        _ = try await call(.post, "/api/v1/finance/transactions", #"{"kind":"expense","amount":"3.10","currency":"EUR","date":"2026-03-02","category_id":"\#(food)"}"#)
        _ = try await call(.post, "/api/v1/finance/transactions", #"{"kind":"income","amount":"2500","currency":"EUR","date":"2026-03-01","category_id":"\#(salary)"}"#)
        _ = try await call(.post, "/api/v1/finance/transactions", #"{"kind":"income","amount":"1500","currency":"JPY","date":"2026-03-03"}"#)
        let trip = try id(try await call(.post, "/api/v1/savings/goals", #"{"name":"Trip","currency":"KWD","target_amount":"100.250","target_date":"2026-12-31"}"#))
        _ = try await call(.put, "/api/v1/savings/goals/\(trip)/plan", #"{"amount":"10","anchor_day":31,"start_month":"2026-01"}"#)
        _ = try await call(.post, "/api/v1/savings/goals/\(trip)/transactions", #"{"kind":"deposit","amount":"10.5","date":"2026-02-01"}"#)
        _ = try await call(.post, "/api/v1/savings/goals/\(trip)/transactions", #"{"kind":"withdrawal","amount":"0.5","date":"2026-02-03","note":"fee"}"#)
        let car = try id(try await call(.post, "/api/v1/savings/goals", #"{"name":"Car","currency":"EUR"}"#))
        _ = try await call(.put, "/api/v1/savings/goals/\(car)/plan", #"{"amount":"50","anchor_day":"last","every_months":2,"start_month":"2026-01"}"#)
        _ = try await call(.delete, "/api/v1/savings/goals/\(car)/plan")
        _ = try await call(.put, "/api/v1/health/source-priority", #"{"order":["ring","watch"]}"#)
        _ = try await call(.post, "/api/v1/ingest/health", HealthIngestionTests.batch(
            samples: [HealthIngestionTests.sample("heart_rate", 58.5, "2026-03-09T07:00:00Z", "2026-03-09T07:00:00Z", source: "Watch", kind: "watch"),
                      HealthIngestionTests.sample("steps", 1200, "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z", source: "iPhone", kind: "phone")],
            sleep: [#"{"stage":"deep","start":"2026-03-09T01:00:00Z","end":"2026-03-09T02:00:00Z","source":{"name":"Ring","kind":"ring"}}"#],
            workouts: [#"{"type":"running","start":"2026-03-09T07:00:30Z","end":"2026-03-09T07:31:00Z","active_energy_kcal":250,"source":{"name":"iPhone","kind":"phone"}}"#]))
        let manual = try await call(.put, "/api/v1/health/manual/body_mass/2026-03-08", #"{"value":71.4}"#)
        _ = try await call(.put, "/api/v1/health/checkins/2026-03-09", #"{"feeling":4,"note":"fine"}"#)
        _ = try await call(.post, "/api/v1/webhooks", #"{"url":"https://hooks.example.com/a","events":["task.completed"]}"#)
        _ = try await call(.post, "/api/v1/devices", #"{"name":"Watch","kind":"watch"}"#)
        return try #require(manual.string("position"), "\(manual.text)")
    }

    static func lines(_ text: String) throws -> [Line] { try ExportTests.lines(text) }

    /// The export once the async figures (daily summaries) have caught up with its records.
    static func settledExport(_ http: any TestClientProtocol, _ token: String, summaries: Int? = nil) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let text = try await http.call(.get, "/api/v1/export", token: token).text
            let count = ExportTests.of("daily_summary", try lines(text)).count
            if count > 0, summaries.map({ count == $0 }) ?? true { return text }
            guard ContinuousClock.now < deadline else { return text }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func importing(_ http: any TestClientProtocol, _ token: String, _ body: String, query: String = "") async throws -> JSONResponse {
        try await http.execute(uri: "/api/v1/import" + query, method: .post,
                               headers: [.authorization: "Bearer \(token)", .contentType: "application/x-ndjson"],
                               body: ByteBuffer(string: body)) { response in
            JSONResponse(status: response.status, headers: response.headers, text: String(buffer: response.body))
        }
    }

    @Test func anExportImportedIntoAFreshAccountExportsTheSameLinesAndAgainAddsNothing() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now, asyncProjectors: true) { harness, http in
            let ana = try #require(try await http.register("ana@example.com").string("access_token"))
            let position = try await Self.seed(http, ana)
            let caughtUp = try await http.call(.get, "/api/v1/health/daily?from=2026-03-08&to=2026-03-09&min_position=\(position)", token: ana)
            #expect(caughtUp.status == .ok, "the day figures caught up: \(caughtUp.text)")
            let original = try await Self.settledExport(http, ana)
            let bo = try #require(try await http.register("bo@example.com", timezone: "America/New_York").string("access_token"))
            let first = try await Self.importing(http, bo, original)
            #expect(first.status == .ok, "\(first.text)")
            let report = first.object
            #expect(report["failed"] as? Int == 0 && report["failures"] as? [String] == [], "\(first.text)")
            #expect(report["notes"] as? [String] == [], "\(first.text)")
            let lines = try Self.lines(original)
            let notCarried = lines.filter { ["device", "webhook", "member", "daily_summary", "audit_finding"].contains($0["type"] as? String ?? "") }.count
            #expect(report["read"] as? Int == lines.count - 2 && report["skipped"] as? Int == notCarried && report["duplicates"] as? Int == 0)
            #expect(report["imported"] as? Int == lines.count - 2 - notCarried)

            let summaries = ExportTests.of("daily_summary", lines).count
            let copy = try await Self.settledExport(http, bo, summaries: summaries)
            let boId = try #require(UUID(uuidString: try await http.call(.get, "/api/v1/me", token: bo).string("id") ?? ""))
            let expected = try Self.normalized(lines, mappedInto: boId, by: ImportService(services: harness.services, profiles: harness.accounts.profiles))
            let found = try Self.normalized(try Self.lines(copy), mappedInto: nil, by: nil)
            #expect(Set(expected.keys) == Set(found.keys))
            for type in expected.keys.sorted() {
                #expect(expected[type] == found[type], "\(type)")
            }

            let again = try await Self.importing(http, bo, original)
            #expect(again.object["imported"] as? Int == 0 && again.object["duplicates"] as? Int == report["imported"] as? Int, "\(again.text)")
            let after = try Self.normalized(try Self.lines(try await Self.settledExport(http, bo, summaries: summaries)), mappedInto: nil, by: nil)
            for type in Set(found.keys).union(after.keys).sorted() { #expect(after[type] == found[type], "\(type), after the same file again") }
        }
    }

    /// The lines of an export by type, each as sorted-key JSON, without what is the copy's own:
    /// the account's id, email and version, every instant it recorded (created, completed,
    /// added, exported), and what is not carried. With `service`, ids of the original are
    /// replaced by those the import derives for `owner`, references included.
    static func normalized(_ lines: [Line], mappedInto owner: UUID?, by service: ImportService?) throws -> [String: [String]] {
        var ids: [String: String] = [:]
        if let owner, let service {
            let source = try #require(lines.first?["user_id"] as? String)
            func key(_ kind: String, _ id: String) -> String { "lifelog:\(source):\(kind):\(id)" }
            var createdBy: [String: String] = [:]
            for line in lines where line["type"] as? String == "task" {
                if let next = line["next_task_id"] as? String, let id = line["id"] as? String { createdBy[next] = id }
            }
            for line in lines {
                guard let type = line["type"] as? String, let id = line["id"] as? String else { continue }
                let mapped: UUID? = switch type {
                case "habit": service.id(owner, key("habit", id), "habit")
                case "freeze": service.id(owner, key("freeze", id), "freeze")
                case "task": createdBy[id].map { service.id(owner, key("task", $0) + "/complete", "next-task") } ?? service.id(owner, key("task", id), "task")
                case "finance_category": service.id(owner, key("finance_category", id), "category")
                case "transaction": service.id(owner, key("transaction", id), "transaction")
                case "savings_goal": service.id(owner, key("savings_goal", id), "savings-goal")
                case "savings_movement": service.id(owner, key("savings_movement", id), "savings-movement")
                default: nil
                }
                if let mapped { ids[id] = mapped.uuidString.lowercased() }
            }
        }
        var result: [String: [String]] = [:]
        for var line in lines {
            guard let type = line["type"] as? String,
                  !["device", "webhook", "member", "audit_finding", "end"].contains(type) else { continue }
            for key in ["created_at", "completed_at", "added_at", "last_used_at", "created_by"] where line[key] != nil && !(line[key] is NSNull) { line[key] = "*" }
            if type == "profile" { (line["id"], line["email"], line["version"]) = ("*", "*", "*") }
            // A version counts the changes made in this account: the copy's category that took its
            // name once the archived one of the same name was archived has one change more.
            if type == "finance_category" { line["version"] = "*" }
            for (key, value) in line { if let text = value as? String, let mapped = ids[text] { line[key] = mapped } }
            let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
            result[type, default: []].append(String(decoding: data, as: UTF8.self))
        }
        return result.mapValues { $0.sorted() }
    }
}
