import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `GET /today` answers what the detailed routes answer for the same user and date.
@Suite struct TodayTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0) }

    /// The same JSON, compared as values.
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return NSDictionary(dictionary: ["v": a]).isEqual(to: ["v": b])
    }

    /// Today starts from the settings it read last time; a zone or language changed since (here
    /// from Belgrade to Kiritimati, UTC+14, where it is already the next day) is what it answers.
    @Test func aChangedZoneOrLanguageIsWhatTheNextTodayAnswers() async throws {
        try await AppHarness.with(now: Self.at("2025-05-08T20:00:00Z")) { _, http in
            let token = try #require(try await http.register("moved@example.com").string("access_token"))
            #expect(try await http.call(.get, "/api/v1/today", token: token).string("date") == "2025-05-08")
            let moved = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"timezone":"Pacific/Kiritimati","language":"sr"}"#)
            #expect(moved.status == .ok, "\(moved.text)")
            let after = try await http.call(.get, "/api/v1/today", token: token)
            #expect(after.string("date") == "2025-05-09")
            let labels = after.object["labels"] as? [String: String]
            let english = try await http.call(.get, "/api/v1/today?lang=en", token: token).object["labels"] as? [String: String]
            #expect(labels != nil && labels != english, "the labels are in the new language")
        }
    }

    @Test func todayMatchesTheDetailedRoutesForTheSameUserAndDate() async throws {
        // 2025-05-08 12:00 in Belgrade.
        try await AppHarness.with(now: Self.at("2025-05-08T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("today@example.com").string("access_token"))
            let habit = try #require(try await http.call(.post, "/api/v1/habits", token: token,
                json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2025-05-01"}"#).string("id"))
            let logged = try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: token, json: #"{"date":"2025-05-07"}"#)
            #expect((200..<300).contains(logged.status.code), "\(logged.text)")
            _ = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Due today","due_date":"2025-05-08"}"#)
            _ = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Late","due_date":"2025-05-01"}"#)
            _ = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Later","due_date":"2025-06-01"}"#)
            let goal = try #require(try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"Trip","currency":"EUR"}"#).string("id"))
            // Payments of 100 on the 10th: April's is overdue, May's is due within 5 days.
            _ = try await http.call(.put, "/api/v1/savings/goals/\(goal)/plan", token: token,
                                    json: #"{"amount":"100","anchor_day":10,"start_month":"2025-04"}"#)
            let category = try #require(try await http.call(.post, "/api/v1/finance/categories", token: token,
                json: #"{"name":"Food","kind":"expense"}"#).string("id"))
            _ = try await http.call(.post, "/api/v1/finance/transactions", token: token,
                json: #"{"kind":"expense","amount":"12.50","currency":"EUR","category_id":"\#(category)","date":"2025-05-08"}"#)

            let today = try await http.call(.get, "/api/v1/today", token: token)
            #expect(today.status == .ok, "\(today.text)")
            let body = today.object
            #expect(body["date"] as? String == "2025-05-08")
            let habits = try await http.call(.get, "/api/v1/habits?date=2025-05-08", token: token).object["items"]
            #expect(Self.same(body["habits"], habits))
            #expect((body["habits"] as? [[String: Any]])?.first?["completed_today"] as? Bool == false)
            let tasks = try await http.call(.get, "/api/v1/tasks?filter=today", token: token).object["items"]
            #expect(Self.same(body["tasks"], tasks))
            #expect((tasks as? [[String: Any]])?.map { $0["title"] as? String } == ["Late", "Due today"])
            let overview = try await http.call(.get, "/api/v1/savings/overview", token: token).object
            let savings = try #require(body["savings"] as? [String: Any])
            #expect(Self.same(savings["overdue"], overview["overdues"]))
            #expect((savings["overdue"] as? [[String: Any]])?.map { $0["due_date"] as? String } == ["2025-04-10"])
            #expect((savings["due_soon"] as? [[String: Any]])?.map { $0["due_date"] as? String } == ["2025-05-10"])
            let summary = try await http.call(.get, "/api/v1/finance/summary", token: token).object
            #expect(Self.same(body["finance"], summary))
            #expect(body["health"] is NSNull)
            #expect((body["labels"] as? [String: String])?["savings.status.overdue"] == "Overdue")
            let russian = try await http.call(.get, "/api/v1/today?lang=ru", token: token).object
            #expect((russian["labels"] as? [String: String])?["savings.status.overdue"] == "Просрочено")
            // Without ?lang or Accept-Language, the user's own language.
            let patched = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"language":"ru"}"#)
            #expect(patched.status == .ok, "\(patched.text)")
            let own = try await http.call(.get, "/api/v1/today", token: token).object
            #expect((own["labels"] as? [String: String])?["savings.status.overdue"] == "Просрочено")
            #expect(try await http.call(.get, "/api/v1/today?date=2025-13-01", token: token).fieldErrors == ["date"])
        }
    }
}
