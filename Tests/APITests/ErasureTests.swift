import API
@testable import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Projections
import Testing
import TestSupport

/// `DELETE /api/v1/me` (issue 29): after an erasure no byte of the user's personal data can be
/// read from the database, by anyone, while the log stays append-only, the other users keep
/// everything of theirs and every read model still rebuilds.
@Suite struct ErasureTests {
    /// Text the erased user typed into every field that holds text.
    static let marks = [
        "ZqProfileName", "zq-erased@example.com", "ZqHabitName", "ZqFreezeReason", "ZqTaskTitle", "ZqTaskNotes", "ZqCategoryName",
        "ZqTransactionNote", "ZqGoalName", "ZqMovementNote", "ZqSourceName", "ZqDeviceName", "zqwebhook.example.com",
        "zqreminders.example.com", "ZqCheckinNote", "ZqIdempotentHabit",
    ]

    /// The whole database as `pg_dump` writes it (plain SQL, the way a leaked dump reads).
    static func dump(_ database: TestDatabase) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("erasure-\(UUID().uuidString).sql")
        defer { try? FileManager.default.removeItem(at: file) }
        try await DatabaseBackup.run("pg_dump", ["--format=plain", "--no-owner", "--file=\(file.path)", database.name], url: database.ownerURL)
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// Where a mark could hide in a dump: as text, and as the hex of a bytea column.
    static func found(in dump: String) -> [String] {
        let lower = dump.lowercased()
        return marks.filter { mark in
            dump.contains(mark) || lower.contains(mark.lowercased()) || lower.contains(mark.utf8.map { String(format: "%02x", $0) }.joined())
        }
    }

    /// The dump's lines that hold a mark, for the failure's message.
    static func lines(of marks: [String], in dump: String) -> [Substring] {
        dump.split(separator: "\n").filter { line in marks.contains { line.lowercased().contains($0.lowercased()) } }.prefix(10).map { $0.prefix(300) }
    }

    @Test func anErasedAccountLeavesNothingReadableAndTheOthersKeepEverything() async throws {
        // Over 60 lines: one user in every area, a second beside them, the erasure, and what each sees after.
        try await AppHarness.with(now: HealthIngestionTests.now, asyncProjectors: true) { harness, http in
            let registered = try await http.call(.post, "/api/v1/auth/register", json: #"""
                {"email":"zq-erased@example.com","password":"correct horse battery","name":"ZqProfileName","timezone":"Europe/Belgrade"}
                """#)
            let token = try #require(registered.string("access_token"))
            let other = try #require(try await http.register("other@example.com").string("access_token"))
            func call(_ method: HTTPRequest.Method, _ path: String, _ json: String? = nil, as who: String? = nil,
                      headers: HTTPFields = [:]) async throws -> JSONResponse {
                let answer = try await http.call(method, path, token: who ?? token, headers: headers, json: json)
                #expect(answer.status.code < 300, "\(path): \(answer.text)")
                return answer
            }
            let habit = try #require(try await call(.post, "/api/v1/habits", #"{"name":"ZqHabitName","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-02-01"}"#).string("id"))
            _ = try await call(.post, "/api/v1/habits/\(habit)/logs", #"{"date":"2026-03-09"}"#)
            _ = try await call(.post, "/api/v1/habits/\(habit)/freezes", #"{"from":"2026-03-01","to":"2026-03-02","reason":"ZqFreezeReason"}"#)
            _ = try await call(.post, "/api/v1/habits", #"{"name":"ZqIdempotentHabit","kind":"boolean","schedule":{"type":"daily"}}"#,
                               headers: [HTTPField.Name("Idempotency-Key")!: "zq-key-1"])
            let task = try #require(try await call(.post, "/api/v1/tasks", #"{"title":"ZqTaskTitle","notes":"ZqTaskNotes","due_date":"2026-03-09"}"#).string("id"))
            _ = try await call(.post, "/api/v1/webhooks", #"{"url":"https://zqwebhook.example.com/a","events":["task.completed"]}"#)
            _ = try await call(.post, "/api/v1/tasks/\(task)/complete")
            let food = try #require(try await call(.post, "/api/v1/finance/categories", #"{"name":"ZqCategoryName","kind":"expense"}"#).string("id"))
            _ = try await call(.post, "/api/v1/finance/transactions",
                               #"{"kind":"expense","amount":"12.30","currency":"EUR","date":"2026-03-02","category_id":"\#(food)","note":"ZqTransactionNote"}"#)
            let goal = try #require(try await call(.post, "/api/v1/savings/goals", #"{"name":"ZqGoalName","currency":"EUR"}"#).string("id"))
            _ = try await call(.post, "/api/v1/savings/goals/\(goal)/transactions", #"{"kind":"deposit","amount":"10","date":"2026-03-01","note":"ZqMovementNote"}"#)
            let device = try await call(.post, "/api/v1/devices", #"{"name":"ZqDeviceName","kind":"watch"}"#)
            let deviceKey = try #require(device.string("api_key"))
            let batch = try await http.call(.post, "/api/v1/ingest/health", token: deviceKey, json: HealthIngestionTests.batch(
                samples: [HealthIngestionTests.sample("heart_rate", 58, "2026-03-09T07:00:00Z", "2026-03-09T07:00:00Z", source: "ZqSourceName", kind: "watch")]))
            #expect(batch.status.code < 300, "\(batch.text)")
            _ = try await call(.put, "/api/v1/health/checkins/2026-03-09", #"{"feeling":4,"note":"ZqCheckinNote"}"#)
            _ = try await call(.patch, "/api/v1/me", #"{"reminders":{"webhook_url":"https://zqreminders.example.com/r"}}"#)
            // A failed login is remembered by the email typed.
            #expect(try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"zq-erased@example.com","password":"wrong password!"}"#).status == .unauthorized)
            // The other user's goal, shared with the erased user, and the erased user's, shared with them.
            let theirs = try #require(try await call(.post, "/api/v1/savings/goals", #"{"name":"KeepGoal","currency":"EUR"}"#, as: other).string("id"))
            _ = try await call(.post, "/api/v1/savings/goals/\(theirs)/transactions", #"{"kind":"deposit","amount":"5","date":"2026-03-01"}"#, as: other)
            let invitation = try await call(.post, "/api/v1/savings/goals/\(theirs)/members", #"{"email":"zq-erased@example.com"}"#, as: other)
            _ = try await call(.post, "/api/v1/savings/invitations/\(invitation.string("id") ?? "")/accept")
            let mine = try await call(.post, "/api/v1/savings/goals/\(goal)/members", #"{"email":"other@example.com"}"#)
            _ = try await call(.post, "/api/v1/savings/invitations/\(mine.string("id") ?? "")/accept", as: other)
            _ = try await call(.post, "/api/v1/habits", #"{"name":"KeepHabit","kind":"boolean","schedule":{"type":"daily"}}"#, as: other)
            let position = try #require(batch.string("position"))
            #expect(try await http.call(.get, "/api/v1/health/daily?from=2026-03-09&to=2026-03-09&min_position=\(position)", token: token).status == .ok)
            #expect(!Self.found(in: try await Self.dump(harness.database)).isEmpty, "the marks are there to be found before")
            let othersExport = try await call(.get, "/api/v1/export", as: other).text
            let events = try await harness.count("SELECT count(*)::int FROM events")

            // A wrong password erases nothing; the right one erases.
            let wrong = try await http.call(.delete, "/api/v1/me", token: token, json: #"{"password":"not my password"}"#)
            #expect(wrong.status == .unprocessableContent && wrong.fieldErrors == ["password"])
            #expect(try await http.call(.delete, "/api/v1/me", token: token, json: "{}").fieldErrors == ["password"])
            #expect(try await http.call(.get, "/api/v1/me", token: token).status == .ok)
            #expect(try await http.call(.delete, "/api/v1/me", token: token, json: #"{"password":"correct horse battery"}"#).status == .noContent)

            // Nothing of them can be read, by the API or in a dump of the database.
            #expect(try await http.call(.get, "/api/v1/me", token: token).status == .unauthorized)
            #expect(try await http.call(.post, "/api/v1/ingest/health", token: deviceKey, json: HealthIngestionTests.batch()).status == .unauthorized)
            #expect(try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"zq-erased@example.com","password":"correct horse battery"}"#)
                .status == .unauthorized)
            // Let the async projectors pass over the last events, then look.
            try await Task.sleep(for: .milliseconds(300))
            let dumped = try await Self.dump(harness.database)
            #expect(Self.found(in: dumped) == [], "\(Self.lines(of: Self.found(in: dumped), in: dumped))")
            // The log is as long as it was; the other user has all of theirs, less the goal that was the erased user's.
            #expect(try await harness.count("SELECT count(*)::int FROM events") == events)
            #expect(try await call(.get, "/api/v1/habits", as: other).text.contains("KeepHabit"))
            let members = try await call(.get, "/api/v1/savings/goals/\(theirs)/members", as: other)
            #expect((members.object["items"] as? [Any])?.count == 1, "only the owner is left: \(members.text)")
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(goal)", token: other).status == .notFound)
            let exportAfter = try await call(.get, "/api/v1/export", as: other).text
            #expect(exportAfter.contains("KeepGoal") && exportAfter.contains("KeepHabit"))
            let movements = try ExportTests.lines(exportAfter).filter { $0["type"] as? String == "savings_movement" }
            #expect(movements.map { $0["amount"] as? String } == ["5.00"], "the other user's deposit: \(movements)")
            #expect(exportAfter.count < othersExport.count)

            // Every read model rebuilds from the log, passing over what can no longer be opened.
            let rebuild = try await CommandLineTests().run(["projections", "rebuild", "--all"], environment: [
                "DATABASE_URL": harness.database.ownerURL.description, "JWT_SECRET": AppHarness.keys[0].secret,
            ])
            #expect(rebuild.status == 0, "\(rebuild.stderr)")
            #expect(Self.found(in: try await Self.dump(harness.database)) == [])
            #expect(try await call(.get, "/api/v1/export", as: other).text.count == exportAfter.count)
            // The address is free again, for a new account with nothing of the old one.
            let again = try #require(try await http.register("zq-erased@example.com").string("access_token"))
            #expect((try await call(.get, "/api/v1/habits", as: again).object["items"] as? [Any])?.isEmpty == true)
        }
    }

    /// Rows a rebuild had already put in its new tables (one running, or one that was
    /// interrupted) go with the erasure too, and the dead letters it set aside stay behind.
    @Test func anErasureReachesARebuildsNewTables() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("shadow@example.com").string("access_token"))
            _ = try await http.call(.post, "/api/v1/habits", token: token, json: #"{"name":"ZqShadowHabit","kind":"boolean","schedule":{"type":"daily"}}"#)
            try await PostgresClient.withRunning(harness.database.ownerConfiguration(), logger: TestDatabase.logger) { owner in
                // As a rebuild leaves them when it is interrupted (`ProjectionRebuilder.prepareShadow`).
                try await owner.query("CREATE SCHEMA IF NOT EXISTS lifelog_rebuild")
                try await owner.query("GRANT USAGE ON SCHEMA lifelog_rebuild TO lifelog_app")
                try await owner.query("CREATE TABLE lifelog_rebuild.rm_habits AS SELECT * FROM rm_habits")
                #expect(try await http.call(.delete, "/api/v1/me", token: token, json: #"{"password":"correct horse battery"}"#).status == .noContent)
                let left = try await owner.query("SELECT count(*)::int FROM lifelog_rebuild.rm_habits")
                for try await count in left.decode(Int.self) { #expect(count == 0) }
            }
        }
    }

    @Test func everyTableIsErasedOrNamedAsHoldingNoUsersRows() async throws {
        try await TestDatabase.withAppClient { _, client in
            let rows = try await client.query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'")
            var tables: [String] = []
            for try await table in rows.decode(String.self) { tables.append(table) }
            let covered = Set(ErasureStore.rows.map(\.table)).union(ErasureStore.holdNoUsersRows)
            #expect(tables.filter { !covered.contains($0) }.sorted() == [], "a new table must say whether it holds a user's rows")
            #expect(Set(ErasureStore.rows.map(\.table)).subtracting(tables).sorted() == [], "no such table")
        }
    }
}
