import API
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing
import TestSupport

/// Issue 24, item 5: every POST a client may retry with an Idempotency-Key stores its work once,
/// whether the retry comes while the first attempt is still running or after the first
/// attempt's answer was lost and the server forgot it (a crash before the answer was kept: every
/// id the command makes must derive from the key, not from a fresh random id). Walks the
/// router's POST routes like the isolation guard: a new POST route without a case fails.
@Suite struct RetryGuardTests {
    struct Case: Sendable, CustomStringConvertible {
        /// The route as the router lists it: `POST /api/v1/habits/{id}/logs`.
        var route: String
        /// Makes what the request needs as the user; returns the concrete path and body.
        var prepare: @Sendable (any TestClientProtocol, String) async throws -> (path: String, json: String?)
        /// Sent with the user's device key instead of the session (ingestion).
        var device = false
        /// The header the device key goes in; nil: in the body, where the JSON says `{device_key}`
        /// (GymDashSync's `client_id`).
        var deviceHeader: String? = "X-API-Key"
        var description: String { route }
    }

    static func id(_ response: JSONResponse) throws -> String { try #require(response.string("id")) }
    static func habit(_ http: any TestClientProtocol, _ token: String, numeric: Bool = false) async throws -> String {
        let json = numeric ? #"{"name":"Water","kind":"numeric","target":8,"unit":"glass","schedule":{"type":"daily"}}"#
            : #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"}}"#
        return try id(try await http.call(.post, "/api/v1/habits", token: token, json: json))
    }
    static func task(_ http: any TestClientProtocol, _ token: String) async throws -> String {
        try id(try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Pay rent","due_date":"2026-01-31","repeat":{"every":"month"}}"#))
    }
    static func goal(_ http: any TestClientProtocol, _ token: String) async throws -> String {
        try id(try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"Trip","currency":"EUR"}"#))
    }
    /// An invitation to the caller (`retry@example.com`) to another user's goal.
    static func invitation(_ http: any TestClientProtocol, _ token: String) async throws -> String {
        let owner = try #require(try await http.register("inviter@example.com").string("access_token"))
        let goal = try await goal(http, owner)
        _ = try await http.call(.post, "/api/v1/savings/goals/\(goal)/members", token: owner, json: #"{"email":"retry@example.com"}"#)
        let mine = try await http.call(.get, "/api/v1/savings/invitations", token: token)
        return try #require((mine.object["items"] as? [[String: Any]])?.first?["id"] as? String, "\(mine.text)")
    }
    static let sample = #"{"samples":[{"metric":"steps","value":1200,"start":"2026-03-09T08:00:00Z","end":"2026-03-09T09:00:00Z","source":{"name":"Watch","kind":"watch"}}]}"#

    static let cases: [Case] = [
        Case(route: "POST /api/v1/habits") { _, _ in ("/api/v1/habits", #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"}}"#) },
        Case(route: "POST /api/v1/habits/{id}/logs") { http, token in ("/api/v1/habits/\(try await habit(http, token, numeric: true))/logs", #"{"value":2}"#) },
        Case(route: "POST /api/v1/habits/{id}/freezes") { http, token in
            ("/api/v1/habits/\(try await habit(http, token))/freezes", #"{"from":"2026-03-12","to":"2026-03-14"}"#)
        },
        Case(route: "POST /api/v1/habits/{id}/restore") { http, token in
            let habit = try await habit(http, token)
            _ = try await http.call(.delete, "/api/v1/habits/\(habit)", token: token)
            return ("/api/v1/habits/\(habit)/restore", nil)
        },
        Case(route: "POST /api/v1/tasks") { _, _ in ("/api/v1/tasks", #"{"title":"Call mum","priority":2}"#) },
        Case(route: "POST /api/v1/tasks/{id}/complete") { http, token in ("/api/v1/tasks/\(try await task(http, token))/complete", nil) },
        Case(route: "POST /api/v1/tasks/{id}/uncomplete") { http, token in
            let task = try await task(http, token)
            _ = try await http.call(.post, "/api/v1/tasks/\(task)/complete", token: token)
            return ("/api/v1/tasks/\(task)/uncomplete", nil)
        },
        Case(route: "POST /api/v1/finance/categories") { _, _ in ("/api/v1/finance/categories", #"{"name":"Food","kind":"expense"}"#) },
        Case(route: "POST /api/v1/finance/transactions") { _, _ in ("/api/v1/finance/transactions", #"{"kind":"expense","amount":"12.50"}"#) },
        Case(route: "POST /api/v1/savings/goals") { _, _ in ("/api/v1/savings/goals", #"{"name":"Bike","currency":"EUR"}"#) },
        Case(route: "POST /api/v1/savings/goals/{id}/transactions") { http, token in
            ("/api/v1/savings/goals/\(try await goal(http, token))/transactions", #"{"kind":"deposit","amount":"10","date":"2026-03-01"}"#)
        },
        Case(route: "POST /api/v1/savings/goals/{id}/members") { http, token in
            _ = try await http.register("friend@example.com")
            return ("/api/v1/savings/goals/\(try await goal(http, token))/members", #"{"email":"friend@example.com"}"#)
        },
        Case(route: "POST /api/v1/savings/invitations/{id}/accept") { http, token in
            ("/api/v1/savings/invitations/\(try await invitation(http, token))/accept", nil)
        },
        Case(route: "POST /api/v1/savings/invitations/{id}/decline") { http, token in
            ("/api/v1/savings/invitations/\(try await invitation(http, token))/decline", nil)
        },
        Case(route: "POST /api/v1/devices") { _, _ in ("/api/v1/devices", #"{"name":"Watch","kind":"watch"}"#) },
        Case(route: "POST /api/v1/devices/pairing-codes") { _, _ in ("/api/v1/devices/pairing-codes", nil) },
        Case(route: "POST /api/v1/webhooks") { _, _ in ("/api/v1/webhooks", #"{"url":"http://127.0.0.1:9/x","events":["task.completed"]}"#) },
        Case(route: "POST /api/v1/webhooks/{id}/test") { http, token in
            let made = try await http.call(.post, "/api/v1/webhooks", token: token, json: #"{"url":"http://127.0.0.1:9/x","events":["task.completed"]}"#)
            return ("/api/v1/webhooks/\(try id(made))/test", nil)
        },
        Case(route: "POST /api/v1/ingest/health", prepare: { _, _ in ("/api/v1/ingest/health", sample) }, device: true),
        Case(route: "POST /api/v1/ingest/health-auto-export", prepare: { _, _ in
            ("/api/v1/ingest/health-auto-export", #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"qty":900,"date":"2026-03-09 08:00:00 +0100"}]}]}}"#)
        }, device: true),
        Case(route: "POST /api/v1/ingest/steps", prepare: { _, _ in
            ("/api/v1/ingest/steps", #"{"steps":[{"date":"2026-03-09","total_steps":4000}]}"#)
        }, device: true),
        Case(route: "POST /api/v1/ingest/sleep", prepare: { _, _ in
            ("/api/v1/ingest/sleep", #"{"sleep":[{"date":"2026-03-09","sleep_start":"2026-03-08T23:00:00Z","sleep_end":"2026-03-09T06:30:00Z","total_sleep_minutes":420}]}"#)
        }, device: true),
        Case(route: "POST /api/v1/ingest/workouts", prepare: { _, _ in
            ("/api/v1/ingest/workouts", #"{"workouts":[{"workout_type":"running","start_time":"2026-03-09T07:00:00Z","end_time":"2026-03-09T07:30:00Z","duration_seconds":1800}]}"#)
        }, device: true),
        Case(route: "POST /api/v1/ingest/profile", prepare: { _, _ in
            ("/api/v1/ingest/profile", #"{"profile":[{"metric":"weight","value":70.5,"unit":"kg","measured_at":"2026-03-09T07:00:00Z"}]}"#)
        }, device: true),
        Case(route: "POST /api/v1/ingest/pulse", prepare: { _, _ in
            ("/api/v1/ingest/pulse", #"{"totalSleep":7.5,"deep":1.2,"rem":1.5,"core":4.8,"awake":0.3,"inBedStart":"2026-03-08T23:00:00Z","sleepEnd":"2026-03-09T06:45:00Z","source":"Watch"}"#)
        }, device: true),
        // The phone apps' own routes (issue 27), with the credential where each app puts it.
        Case(route: "POST /health", prepare: { _, _ in
            ("/health", #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2026-03-09 08:00:00 +0100","qty":640,"source":"iPhone"}]},{"name":"heart_rate","units":"bpm","data":[{"date":"2026-03-09 08:05:00 +0100","Avg":71,"source":"Watch"}]},{"name":"sleep_core","units":"hr","data":[{"date":"2026-03-09 01:00:00 +0100","qty":1.5,"source":"Watch"}]}]}}"#)
        }, device: true),
        Case(route: "POST /health/workouts", prepare: { _, _ in
            ("/health/workouts", #"{"data":{"workouts":[{"id":"0A4C9E1B-2F3D-4E5F-8A9B-0C1D2E3F4A5B","name":"Walk","start":"2026-03-09 07:00:00 +0100","end":"2026-03-09 07:40:00 +0100","heartRateData":[],"stepCount":[]}]}}"#)
        }, device: true),
        Case(route: "POST /api/health", prepare: { _, _ in
            ("/api/health", #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2026-03-09 00:00:00 +0100","qty":4100}]}]}}"#)
        }, device: true),
        Case(route: "POST /api/v1/ingest/healthpush", prepare: { _, _ in
            ("/api/v1/ingest/healthpush", #"{"device_name":"HealthPush","timestamp":"2026-03-09T10:00:00.000Z","metrics":[{"id":"7E244E9A-6F83-5EE6-81E1-DE1AB2EECA0A","type":"steps","value":3120,"unit":"steps","start_date":"2026-03-08T23:00:00.000Z","end_date":"2026-03-09T23:00:00.000Z"}]}"#)
        }, device: true, deviceHeader: "X-Webhook-Secret"),
        Case(route: "POST /api/ingest/steps", prepare: { _, _ in
            ("/api/ingest/steps", #"{"client_id":"{device_key}","steps":[{"date":"2026-03-08T14:10:00Z","total_steps":8400,"healthkit_uuid":"5E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8"}]}"#)
        }, device: true, deviceHeader: nil),
        Case(route: "POST /api/ingest/sleep", prepare: { _, _ in
            ("/api/ingest/sleep", #"{"client_id":"{device_key}","sleep_records":[{"date":"2026-03-08","total_sleep_minutes":410,"healthkit_uuid":"6E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8","sleep_start":"2026-03-08T22:30:00Z","sleep_end":"2026-03-09T05:50:00Z"}]}"#)
        }, device: true, deviceHeader: nil),
        Case(route: "POST /api/ingest/workouts", prepare: { _, _ in
            ("/api/ingest/workouts", #"{"client_id":"{device_key}","workouts":[{"workout_type":"run","start_time":"2026-03-09T07:00:00Z","end_time":"2026-03-09T07:30:00Z","duration_seconds":1800,"calories_active":300,"distance_meters":5000,"avg_heart_rate":150,"max_heart_rate":150,"source_device":"apple_watch","metadata":{"healthkit_uuid":"7E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8"}}]}"#)
        }, device: true, deviceHeader: nil),
        Case(route: "POST /api/ingest/profile", prepare: { _, _ in
            ("/api/ingest/profile", #"{"client_id":"{device_key}","metrics":[{"metric":"weight","value":70.5,"unit":"kg","measured_at":"2026-03-09T07:00:00Z","source":"apple_health","healthkit_uuid":"8E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8"}]}"#)
        }, device: true, deviceHeader: nil),
        // Questions: they store nothing, retried or not.
        Case(route: "POST /api/ingest/workouts/query", prepare: { _, _ in
            ("/api/ingest/workouts/query", #"{"client_id":"{device_key}","uuids":["7E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8"]}"#)
        }, device: true, deviceHeader: nil),
        Case(route: "POST /api/ingest/profile/query", prepare: { _, _ in
            ("/api/ingest/profile/query", #"{"uuids":["8E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8"]}"#)
        }, device: true, deviceHeader: nil),
        // An export brought in: the second attempt, beside the first or after it, finds each line's work stored.
        Case(route: "POST /api/v1/import") { _, _ in ("/api/v1/import", ImportLineTests.file) },
        Case(route: "POST /api/v1/reminders/{id}/ack") { http, token in
            // No route plans a reminder; an empty list has none to acknowledge: a 404 stores nothing either.
            ("/api/v1/reminders/00000000-0000-0000-0000-000000000000/ack", nil)
        },
    ]

    /// POST routes outside the Idempotency-Key's scope, and why.
    static let notRetried: Set<String> = [
        "POST /api/v1/auth/register",     // no user yet to scope a key to; a second attempt is a 409
        "POST /api/v1/auth/login",        // a new session each time is the point
        "POST /api/v1/auth/refresh",      // a refresh token is spent on use; a retry is refused by design
        "POST /api/v1/auth/logout",       // ends the caller's session: a retry has no session
        "POST /api/v1/auth/logout-all",
        "POST /api/v1/pair",              // a pairing code is spent on use
        "POST /pair",                     // GymDashSync's pairing: the same
        // The dashboard's cookie session: no key scope (no bearer user), and a refresh cookie is spent on use.
        "POST /api/v1/auth/browser/login",
        "POST /api/v1/auth/browser/register",
        "POST /api/v1/auth/browser/refresh",
        "POST /api/v1/auth/browser/logout",
        // Ends every session, the caller's too: a retry's token no longer authenticates (401), and
        // the client logs in with the new password; the change itself is one event per request.
        "POST /api/v1/me/password",
    ]

    @Test func everyPostRouteHasARetryCase() async throws {
        try await TestDatabase.withAppClient { _, client in
            let routes = RouteTable()
            _ = buildRouter(try await AppDependencies.forTests(client: client), routes: routes)
            let posts = Set(routes.all().filter { $0.method == "POST" }.map { route -> String in
                let path = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "POST /" + path.joined(separator: "/")
            })
            let covered = Set(Self.cases.map(\.route)).union(Self.notRetried)
            #expect(posts.subtracting(covered).sorted() == [], "POST routes without a retry case")
            #expect(covered.subtracting(posts).sorted() == [], "retry cases for routes that do not exist")
        }
    }

    /// Rows of the user's in every table that holds a user's data (the log included), except the
    /// security state a retry may legitimately add to (a new token pair for a password change).
    static func footprint(_ harness: AppHarness, user: UUID) async throws -> [String: Int] {
        var tables: [String] = []
        for try await (table, column) in try await harness.client.rows("""
            SELECT table_name::text, column_name::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND column_name IN ('owner_id', 'user_id')
              AND table_name NOT IN ('idempotency_keys', 'sessions', 'refresh_tokens', 'auth_failures', 'registration_attempts')
            ORDER BY 1
            """, logger: TestDatabase.logger).decode((String, String).self) { tables.append("\(table).\(column)") }
        var counts: [String: Int] = [:]
        for entry in tables {
            let parts = entry.split(separator: ".")
            counts[entry] = try await harness.count(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(parts[0]) WHERE \(parts[1]) = $1",
                                                                  binds: { var b = PostgresBindings(); b.append(user); return b }()))
        }
        return counts
    }

    @Test(arguments: cases)
    func aRetriedPostStoresItsWorkOnce(_ item: Case) async throws {
        try await AppHarness.with(now: Date(timeIntervalSince1970: 1_773_144_000), allowPrivateWebhooks: true) { harness, http in
            let registered = try await http.register("retry@example.com")
            let token = try #require(registered.string("access_token"))
            let user = try #require(UUID(uuidString: ((registered.object["user"] as? [String: Any])?["id"] as? String) ?? ""))
            var credential = token
            if item.device {
                credential = try #require(try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"Phone","kind":"phone"}"#)
                    .string("api_key"))
            }
            var (path, json) = try await item.prepare(http, token)
            if item.device, item.deviceHeader == nil { json = json?.replacingOccurrences(of: "{device_key}", with: credential) }
            func send(_ key: String) async throws -> JSONResponse {
                var headers: HTTPFields = [.init("Idempotency-Key")!: key]
                if item.device, let header = item.deviceHeader { headers[.init(header)!] = credential }
                return try await http.call(.post, path, token: item.device ? nil : credential, headers: headers, json: json)
            }

            // A retry while the first attempt runs: both answer alike, the work is stored once.
            let (first, beside) = try await (send("k-1"), send("k-1"))
            #expect(first.status == beside.status, "\(item): \(first.text) / \(beside.text)")
            let once = try await Self.footprint(harness, user: user)

            // A retry after the first answer was lost and forgotten (a crash before it was kept).
            _ = try await harness.count("DELETE FROM idempotency_keys")
            let again = try await send("k-1")
            #expect(again.status == first.status || (first.status.code < 300 && again.status.code < 300), "\(item): \(again.text)")
            #expect(try await Self.footprint(harness, user: user) == once, "\(item) stored its work again")
        }
    }
}
