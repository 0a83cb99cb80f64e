import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct TaskRoutesTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0) }

    @Test func aMonthlyTaskComesBackOnTheAnchorDayClampedToMonthEnds() async throws {
        try await AppHarness.with(now: Self.at("2024-01-20T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("tasks@example.com").string("access_token"))
            let created = try await http.call(.post, "/api/v1/tasks", token: token,
                                              json: #"{"title":"Pay rent","priority":3,"due_date":"2024-01-31","repeat":{"every":"month"}}"#)
            #expect(created.status == .created)
            var id = try #require(created.string("id"))
            var dues: [String] = []
            for _ in 0..<3 {
                let done = try await http.call(.post, "/api/v1/tasks/\(id)/complete", token: token)
                #expect(done.object["completed"] as? Bool == true)
                id = try #require(done.string("next_task_id"))
                dues.append(try await http.call(.get, "/api/v1/tasks/\(id)", token: token).string("due_date") ?? "")
            }
            #expect(dues == ["2024-02-29", "2024-03-31", "2024-04-30"])
        }
    }

    @Test func uncompletingRemovesAnUntouchedNextOccurrence() async throws {
        try await AppHarness.with(now: Self.at("2026-03-02T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("undo@example.com").string("access_token"))
            let id = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Water plants","due_date":"2026-03-02","repeat":{"every":"week"}}"#).string("id"))
            let next = try #require(try await http.call(.post, "/api/v1/tasks/\(id)/complete", token: token).string("next_task_id"))
            #expect(try await http.call(.get, "/api/v1/tasks/\(next)", token: token).string("due_date") == "2026-03-09")
            let reopened = try await http.call(.post, "/api/v1/tasks/\(id)/uncomplete", token: token)
            #expect(reopened.object["completed"] as? Bool == false)
            #expect(try await http.call(.get, "/api/v1/tasks/\(next)", token: token).status == .notFound)

            // A next occurrence that was edited stays.
            let again = try #require(try await http.call(.post, "/api/v1/tasks/\(id)/complete", token: token).string("next_task_id"))
            _ = try await http.call(.patch, "/api/v1/tasks/\(again)", token: token, json: #"{"notes":"use the blue can"}"#)
            _ = try await http.call(.post, "/api/v1/tasks/\(id)/uncomplete", token: token)
            #expect(try await http.call(.get, "/api/v1/tasks/\(again)", token: token).status == .ok)
        }
    }

    @Test func filtersOrderAndOverdueFollowTheUsersToday() async throws {
        // 2026-03-10 18:00 in Belgrade.
        try await AppHarness.with(now: Self.at("2026-03-10T17:00:00Z")) { harness, http in
            let token = try #require(try await http.register("list@example.com").string("access_token"))
            for json in [#"{"title":"Late","due_date":"2026-03-09"}"#,
                         #"{"title":"Today low","priority":1,"due_date":"2026-03-10"}"#,
                         #"{"title":"Today high","priority":3,"due_date":"2026-03-10"}"#,
                         #"{"title":"Today at noon","due_date":"2026-03-10","due_time":"12:00"}"#,
                         #"{"title":"Tomorrow","due_date":"2026-03-11"}"#,
                         #"{"title":"Someday"}"#] {
                #expect(try await http.call(.post, "/api/v1/tasks", token: token, json: json).status == .created)
            }
            func titles(_ filter: String) async throws -> [String] {
                (try await http.call(.get, "/api/v1/tasks?filter=\(filter)", token: token).object["items"] as? [[String: Any]] ?? [])
                    .compactMap { $0["title"] as? String }
            }
            #expect(try await titles("open") == ["Late", "Today high", "Today at noon", "Today low", "Tomorrow", "Someday"])
            #expect(try await titles("today") == ["Late", "Today high", "Today at noon", "Today low"])
            #expect(try await titles("overdue") == ["Late", "Today at noon"])
            let items = try await http.call(.get, "/api/v1/tasks?filter=open", token: token).object["items"] as? [[String: Any]] ?? []
            #expect(items.first { $0["title"] as? String == "Today low" }?["due_today"] as? Bool == true)
            #expect(items.first { $0["title"] as? String == "Today low" }?["overdue"] as? Bool == false)

            // Paging returns every task once, in order.
            var paged: [String] = []
            var cursor: String?
            repeat {
                let page = try await http.call(.get, "/api/v1/tasks?filter=all&limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                paged += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
                cursor = page.string("next_cursor")
            } while cursor != nil
            #expect(paged == ["Late", "Today high", "Today at noon", "Today low", "Tomorrow", "Someday"])

            let bad = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"","priority":5,"repeat":{"every":"week"}}"#)
            #expect(bad.status == .unprocessableContent)
            let fields = Set((bad.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["title", "priority", "repeat"])
            #expect(try await http.call(.get, "/api/v1/tasks?filter=soon", token: token).status == .unprocessableContent)
            // Cursors are opaque but not signed: a forged position is a 400, never a crash or a 500.
            for forged in [#"{"due":"2026-01-01","priority":-9223372036854775808,"createdMicros":0,"id":"00000000-0000-0000-0000-000000000000"}"#,
                           #"{"due":"2026-13-45","priority":2,"createdMicros":0,"id":"00000000-0000-0000-0000-000000000000"}"#] {
                let cursor = Data(forged.utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                let refused = try await http.call(.get, "/api/v1/tasks?cursor=\(cursor)", token: token)
                #expect(refused.status == .badRequest, "\(forged)")
                // The problem names the parameter, as a 422 names its field.
                #expect(refused.fieldErrors == ["cursor"], "\(forged)")
            }
            // Year 0 does not exist in PostgreSQL: once a 500, now the field is named.
            let yearZero = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Ancient","due_date":"0000-01-01"}"#)
            #expect(yearZero.status == .unprocessableContent)
            #expect(yearZero.text.contains("due_date"))
        }
    }

    /// PATCH reads like JSON Merge Patch: an absent field stays, null clears it.
    @Test func nullClearsDueDatesTimesAndNotes() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T09:00:00Z")) { _, http in
            let token = try #require(try await http.register("clear@example.com").string("access_token"))
            let id = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Renew passport","notes":"photos first","due_date":"2026-03-09","due_time":"10:00"}"#).string("id"))
            let untimed = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, json: #"{"due_time":null}"#)
            #expect(untimed.status == .ok)
            #expect(untimed.object["due_time"] == nil)
            #expect(untimed.string("due_date") == "2026-03-09")
            #expect(untimed.string("notes") == "photos first")
            let someday = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, json: #"{"due_date":null,"notes":null}"#)
            #expect(someday.status == .ok)
            #expect(someday.object["due_date"] == nil)
            #expect(someday.object["notes"] == nil)
            #expect(someday.object["overdue"] as? Bool == false)
            let overdue = try await http.call(.get, "/api/v1/tasks?filter=overdue", token: token)
            #expect((overdue.object["items"] as? [Any])?.isEmpty == true)
            // A time needs a date, and a repeating task keeps its date.
            #expect(try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, json: #"{"due_time":"08:00"}"#).status == .unprocessableContent)
            let weekly = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Bins","due_date":"2026-03-11","repeat":{"every":"week"}}"#).string("id"))
            let refused = try await http.call(.patch, "/api/v1/tasks/\(weekly)", token: token, json: #"{"due_date":null}"#)
            #expect(refused.status == .unprocessableContent)
            // A rule cannot be changed, but "repeat": null asks for no change and is fine.
            #expect(try await http.call(.patch, "/api/v1/tasks/\(weekly)", token: token, json: #"{"repeat":{"every":"day"}}"#).status == .unprocessableContent)
            #expect(try await http.call(.patch, "/api/v1/tasks/\(weekly)", token: token, json: #"{"repeat":null,"priority":3}"#).status == .ok)
            #expect(try await http.call(.get, "/api/v1/tasks/\(weekly)", token: token).string("due_date") == "2026-03-11")
        }
    }

    /// Two requests at once act on the state one of them left: one next occurrence, not two,
    /// and an edit made against a version already changed is 412, never silently undone.
    @Test func concurrentCompletesAndEditsNeverDoubleOrLose() async throws {
        try await AppHarness.with(now: Self.at("2026-03-02T09:00:00Z")) { _, http in
            let token = try #require(try await http.register("race@example.com").string("access_token"))
            let id = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Stand-up","due_date":"2026-03-02","repeat":{"every":"day"}}"#).string("id"))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<4 { group.addTask { try await http.call(.post, "/api/v1/tasks/\(id)/complete", token: token).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .ok }, "\(statuses)")
            let open = try await http.call(.get, "/api/v1/tasks?filter=open", token: token)
            #expect((open.object["items"] as? [[String: Any]] ?? []).compactMap { $0["due_date"] as? String } == ["2026-03-03"])

            let task = try #require(try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Plan trip"}"#).string("id"))
            let edits = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                // Three real changes (the default priority 2 again would change nothing, and a
                // change that changes nothing is no conflict).
                for title in ["Plan the trip", "Book the trip", "Cancel the trip"] {
                    group.addTask {
                        try await http.call(.patch, "/api/v1/tasks/\(task)", token: token, headers: [.ifMatch: "\"1\""], json: #"{"title":"\#(title)"}"#).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(edits.filter { $0 == .ok }.count == 1, "\(edits)")
            #expect(edits.filter { $0 == .preconditionFailed }.count == 2, "\(edits)")
            // Exactly one edit landed: the task is at its second version.
            #expect(try await http.call(.get, "/api/v1/tasks/\(task)", token: token).headers[.eTag] == "\"2\"")
        }
    }

    /// A moved first occurrence moves the series; a moved later one keeps the anchor, and the
    /// next occurrence is never due on or before the one just done.
    @Test func movingARepeatingTasksDueDate() async throws {
        try await AppHarness.with(now: Self.at("2026-01-05T09:00:00Z")) { _, http in
            let token = try #require(try await http.register("move@example.com").string("access_token"))
            let rent = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Rent","due_date":"2026-01-31","repeat":{"every":"month"}}"#).string("id"))
            #expect(try await http.call(.patch, "/api/v1/tasks/\(rent)", token: token, json: #"{"due_date":"2026-01-15"}"#).status == .ok)
            let next = try #require(try await http.call(.post, "/api/v1/tasks/\(rent)/complete", token: token).string("next_task_id"))
            #expect(try await http.call(.get, "/api/v1/tasks/\(next)", token: token).string("due_date") == "2026-02-15")

            let gym = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Gym","due_date":"2026-01-05","repeat":{"every":"week"}}"#).string("id"))  // a Monday
            let second = try #require(try await http.call(.post, "/api/v1/tasks/\(gym)/complete", token: token).string("next_task_id"))
            #expect(try await http.call(.get, "/api/v1/tasks/\(second)", token: token).string("due_date") == "2026-01-12")
            #expect(try await http.call(.patch, "/api/v1/tasks/\(second)", token: token, json: #"{"due_date":"2026-01-22"}"#).status == .ok)
            let third = try #require(try await http.call(.post, "/api/v1/tasks/\(second)/complete", token: token).string("next_task_id"))
            #expect(try await http.call(.get, "/api/v1/tasks/\(third)", token: token).string("due_date") == "2026-01-26")
        }
    }

    /// Overdue compares the due date and time with the real local clock, and the overdue
    /// filter is applied before a page is cut, so paging never drops an overdue task.
    @Test func overdueFollowsTheRealClockAndPagesWhole() async throws {
        // 02:30 on May 2 in UTC; with day_start_hour 4 the logical today is still May 1.
        try await AppHarness.with(now: Self.at("2026-05-02T02:30:00Z")) { _, http in
            let token = try #require(try await http.register("night@example.com", timezone: "UTC").string("access_token"))
            #expect(try await http.call(.patch, "/api/v1/me", token: token, json: #"{"day_start_hour":4}"#).status == .ok)
            let late = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Late call","due_date":"2026-05-01","due_time":"22:00"}"#).string("id"))
            let early = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"Early pill","due_date":"2026-05-02","due_time":"01:00"}"#).string("id"))
            for n in 0..<2 {
                _ = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Today \#(n)","priority":3,"due_date":"2026-05-01"}"#)
            }
            #expect(try await http.call(.get, "/api/v1/tasks/\(late)", token: token).object["overdue"] as? Bool == true)
            #expect(try await http.call(.get, "/api/v1/tasks/\(early)", token: token).object["overdue"] as? Bool == true)
            var overdue: [String] = []
            var cursor: String?
            repeat {
                let page = try await http.call(.get, "/api/v1/tasks?filter=overdue&limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                overdue += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
                cursor = page.string("next_cursor")
            } while cursor != nil
            #expect(overdue == ["Late call", "Early pill"])
            let today = try await http.call(.get, "/api/v1/tasks?filter=today", token: token)
            #expect((today.object["items"] as? [Any])?.count == 4)
        }
    }

    @Test func ifMatchAndDelete() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("etag@example.com").string("access_token"))
            let created = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Call mum"}"#)
            let id = try #require(created.string("id"))
            let etag = try #require(created.headers[.eTag])
            let changed = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, headers: [.ifMatch: etag], json: #"{"priority":3}"#)
            #expect(changed.status == .ok)
            #expect(changed.object["priority"] as? Int == 3)
            let stale = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, headers: [.ifMatch: etag], json: #"{"priority":1}"#)
            #expect(stale.status == .preconditionFailed)
            // A foreign tag matches nothing (412); a list is a 400; the weak form a compressing
            // proxy makes of our tag still names the same version.
            let current = try #require(changed.headers[.eTag])
            for tag in ["\"abc\"", "\"-1\"", "W/\"99\""] {
                let refused = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, headers: [.ifMatch: tag], json: #"{"priority":1}"#)
                #expect(refused.status == .preconditionFailed, "\(tag)")
            }
            let list = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, headers: [.ifMatch: "\(current), \"9\""], json: #"{"priority":1}"#)
            #expect(list.status == .badRequest)
            #expect(try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, headers: [.ifMatch: ""], json: #"{"priority":1}"#).status == .badRequest)
            #expect(try await http.call(.get, "/api/v1/tasks/\(id)", token: token).object["priority"] as? Int == 3)
            let weak = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, headers: [.ifMatch: "W/\(current)"], json: #"{"priority":2}"#)
            #expect(weak.status == .ok)
            #expect(weak.object["priority"] as? Int == 2)
            #expect(try await http.call(.delete, "/api/v1/tasks/\(id)", token: token).status == .noContent)
            #expect(try await http.call(.get, "/api/v1/tasks/\(id)", token: token).status == .notFound)
        }
    }
}
