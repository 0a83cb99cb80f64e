import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Two users; for every route that takes a resource id, user B gets 404 for user A's resource,
/// and A's resource is unchanged afterwards. Each area adds its routes to `cases`.
@Suite struct IsolationTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        /// Creates a resource as A and returns its id.
        var create: @Sendable (any TestClientProtocol, String) async throws -> String
        /// The requests B tries with A's id.
        var attempts: [(method: HTTPRequest.Method, path: String, json: String?)]
        /// True when A's resource is still there and unchanged.
        var intact: @Sendable (any TestClientProtocol, String, String) async throws -> Bool
        /// Requests whose path names the caller's own data rather than a resource (a metric and a
        /// date): B may make them (2xx), and they must leave A's data as it was.
        var ownWrites: [(method: HTTPRequest.Method, path: String, json: String?)] = []
        /// For resources no route creates (a planned reminder): made in the database instead of `create`.
        var createInDatabase: (@Sendable (AppHarness, any TestClientProtocol, String) async throws -> String)? = nil
    }

    static let habitJSON = #"{"name":"A's habit","kind":"boolean","schedule":{"type":"daily"}}"#

    static let cases: [Case] = [
        Case(
            description: "tasks",
            create: { http, token in
                try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"A's task","due_date":"2026-01-31","repeat":{"every":"month"}}"#).string("id") ?? ""
            },
            attempts: [
                (.get, "/api/v1/tasks/{id}", nil),
                (.patch, "/api/v1/tasks/{id}", #"{"title":"Mine now"}"#),
                (.delete, "/api/v1/tasks/{id}", nil),
                (.post, "/api/v1/tasks/{id}/complete", nil),
                (.post, "/api/v1/tasks/{id}/uncomplete", nil),
            ],
            intact: { http, token, id in
                let task = try await http.call(.get, "/api/v1/tasks/\(id)", token: token)
                return task.string("title") == "A's task" && task.object["completed"] as? Bool == false
            }),
        Case(
            description: "habits",
            create: { http, token in
                let id = try await http.call(.post, "/api/v1/habits", token: token, json: habitJSON).string("id") ?? ""
                _ = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: "{}")
                return id
            },
            attempts: [
                (.get, "/api/v1/habits/{id}", nil),
                (.patch, "/api/v1/habits/{id}", #"{"name":"Mine now"}"#),
                (.delete, "/api/v1/habits/{id}", nil),
                (.post, "/api/v1/habits/{id}/restore", nil),
                (.post, "/api/v1/habits/{id}/logs", "{}"),
                (.get, "/api/v1/habits/{id}/logs", nil),
                (.get, "/api/v1/habits/{id}/history", nil),
                (.post, "/api/v1/habits/{id}/freezes", #"{"from":"2026-01-01","to":"2026-01-02"}"#),
                (.delete, "/api/v1/habits/{id}/logs/{date}", nil),
                (.delete, "/api/v1/habits/{id}/freezes/{freeze_id}", nil),
            ],
            intact: { http, token, id in
                let habit = try await http.call(.get, "/api/v1/habits/\(id)", token: token)
                return habit.string("name") == "A's habit" && habit.object["archived"] as? Bool == false
                    && habit.object["completed_today"] as? Bool == true
            }),
        Case(
            description: "finance categories",
            create: { http, token in
                try await http.call(.post, "/api/v1/finance/categories", token: token, json: #"{"name":"A's food","kind":"expense"}"#).string("id") ?? ""
            },
            attempts: [
                (.get, "/api/v1/finance/categories/{id}", nil),
                (.patch, "/api/v1/finance/categories/{id}", #"{"name":"Mine now"}"#),
                (.delete, "/api/v1/finance/categories/{id}", nil),
                (.put, "/api/v1/finance/categories/{id}/budget", #"{"amount":"1.00","currency":"EUR","from_month":"2026-01"}"#),
                (.delete, "/api/v1/finance/categories/{id}/budget", nil),
            ],
            intact: { http, token, id in
                let category = try await http.call(.get, "/api/v1/finance/categories/\(id)", token: token)
                return category.string("name") == "A's food" && category.object["archived"] as? Bool == false
                    && (category.object["budgets"] as? [Any])?.isEmpty == true
            }),
        Case(
            description: "finance transactions",
            create: { http, token in
                try await http.call(.post, "/api/v1/finance/transactions", token: token, json: #"{"kind":"expense","amount":"9.99"}"#).string("id") ?? ""
            },
            attempts: [
                (.get, "/api/v1/finance/transactions/{id}", nil),
                (.patch, "/api/v1/finance/transactions/{id}", #"{"amount":"1.00"}"#),
                (.delete, "/api/v1/finance/transactions/{id}", nil),
            ],
            intact: { http, token, id in
                try await http.call(.get, "/api/v1/finance/transactions/\(id)", token: token).string("amount") == "9.99"
            }),
        Case(
            description: "devices",
            create: { http, token in
                try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"A's watch","kind":"watch"}"#).string("id") ?? ""
            },
            attempts: [(.delete, "/api/v1/devices/{id}", nil)],
            intact: { http, token, id in
                let list = try await http.call(.get, "/api/v1/devices", token: token)
                return (list.object["items"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == id }
            }),
        Case(
            description: "savings goals",
            create: { http, token in
                let id = try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"A's goal","currency":"EUR"}"#).string("id") ?? ""
                _ = try await http.call(.put, "/api/v1/savings/goals/\(id)/plan", token: token, json: #"{"amount":"10","anchor_day":1,"start_month":"2025-01"}"#)
                _ = try await http.call(.post, "/api/v1/savings/goals/\(id)/transactions", token: token, json: #"{"kind":"deposit","amount":"10","date":"2025-01-01"}"#)
                return id
            },
            attempts: [
                (.get, "/api/v1/savings/goals/{id}", nil),
                (.patch, "/api/v1/savings/goals/{id}", #"{"name":"Mine now"}"#),
                (.delete, "/api/v1/savings/goals/{id}", nil),
                (.put, "/api/v1/savings/goals/{id}/plan", #"{"amount":"99","anchor_day":"last","start_month":"2025-01"}"#),
                (.delete, "/api/v1/savings/goals/{id}/plan", nil),
                (.get, "/api/v1/savings/goals/{id}/occurrences", nil),
                (.get, "/api/v1/savings/goals/{id}/transactions", nil),
                (.post, "/api/v1/savings/goals/{id}/transactions", #"{"kind":"withdrawal","amount":"10","date":"2025-01-02"}"#),
                (.delete, "/api/v1/savings/goals/{id}/transactions/{tid}", nil),
                (.get, "/api/v1/savings/goals/{id}/members", nil),
                (.post, "/api/v1/savings/goals/{id}/members", #"{"email":"intruder@example.com"}"#),
                (.delete, "/api/v1/savings/goals/{id}/members/{user_id}", nil),
                (.get, "/api/v1/savings/goals/{id}/invitations", nil),
                (.delete, "/api/v1/savings/goals/{id}/invitations/{invitation_id}", nil),
            ],
            intact: { http, token, id in
                let goal = try await http.call(.get, "/api/v1/savings/goals/\(id)", token: token)
                let members = try await http.call(.get, "/api/v1/savings/goals/\(id)/members", token: token)
                return goal.string("name") == "A's goal" && goal.string("balance") == "10.00"
                    && (goal.object["plan"] as? [String: Any])?["amount"] as? String == "10.00"
                    && (members.object["items"] as? [[String: Any]])?.count == 1
            }),
        Case(
            description: "savings invitations",
            create: { http, token in
                // A invites a third account; B, who is not the invitee, tries to answer it.
                _ = try await http.register("invitee@example.com")
                let goal = try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"A's goal","currency":"EUR"}"#).string("id") ?? ""
                return try await http.call(.post, "/api/v1/savings/goals/\(goal)/members", token: token, json: #"{"email":"invitee@example.com"}"#)
                    .string("id") ?? ""
            },
            attempts: [
                (.post, "/api/v1/savings/invitations/{id}/accept", nil),
                (.post, "/api/v1/savings/invitations/{id}/decline", nil),
            ],
            intact: { http, token, id in
                let goal = try await http.call(.get, "/api/v1/savings/goals", token: token).object["items"] as? [[String: Any]]
                let goalId = goal?.first?["id"] as? String ?? ""
                let invitations = try await http.call(.get, "/api/v1/savings/goals/\(goalId)/invitations", token: token).object["items"] as? [[String: Any]]
                let members = try await http.call(.get, "/api/v1/savings/goals/\(goalId)/members", token: token).object["items"] as? [[String: Any]]
                return invitations?.map { [$0["id"] as? String, $0["status"] as? String] } == [[id, "pending"]] && members?.count == 1
            }),
        Case(
            description: "health",
            create: { http, token in
                // A's night ending 2026-01-01 and A's manual steps for that day.
                _ = try await http.call(.post, "/api/v1/ingest/health", token: token, json: #"{"sleep":[{"stage":"core","start":"2025-12-31T23:00:00Z","end":"2026-01-01T06:00:00Z","source":{"name":"Watch","kind":"watch"}}],"samples":[{"metric":"steps","value":1234,"start":"2026-01-01T09:00:00Z","end":"2026-01-01T09:10:00Z","source":{"name":"Watch","kind":"watch"}}]}"#)
                _ = try await http.call(.put, "/api/v1/health/manual/steps/2026-01-01", token: token, json: #"{"value":4321}"#)
                _ = try await http.call(.put, "/api/v1/health/checkins/2026-01-01", token: token, json: #"{"feeling":5}"#)
                return "unused"
            },
            attempts: [
                (.get, "/api/v1/health/sleep/{date}", nil),
                (.delete, "/api/v1/health/manual/{metric}/{date}", nil),
                // Findings are read per owner (HealthAuditTests acknowledges another user's real one: 404).
                (.patch, "/api/v1/health/quality/{id}", #"{"status":"acknowledged"}"#),
            ],
            intact: { http, token, _ in
                let latest = try await http.call(.get, "/api/v1/health/latest", token: token)
                let steps = (latest.object["items"] as? [[String: Any]])?.first { $0["metric"] as? String == "steps" }
                // A's manual value is still there to remove.
                let removed = try await http.call(.delete, "/api/v1/health/manual/steps/2026-01-01", token: token)
                // A's check-in is A's, whatever B said of the same morning.
                let recovery = try await http.call(.get, "/api/v1/health/recovery?date=2026-01-01", token: token)
                let checkIn = recovery.object["check_in"] as? [String: Any]
                return steps?["value"] as? Double == 1_234 && removed.status == .noContent && checkIn?["feeling"] as? Int == 5
            },
            ownWrites: [(.put, "/api/v1/health/manual/{metric}/{date}", #"{"value":99}"#),
                        (.put, "/api/v1/health/checkins/{date}", #"{"feeling":1}"#)]),
        Case(
            description: "health-sync's sections",
            create: { http, token in
                _ = try await http.call(.post, "/api/v1/ingest/health", token: token, json: #"{"sleep":[{"stage":"core","start":"2025-12-31T23:00:00Z","end":"2026-01-01T06:00:00Z","source":{"name":"Watch","kind":"watch"}}]}"#)
                return "unused"
            },
            attempts: [],
            intact: { http, token, _ in
                try await http.call(.get, "/api/v1/health/sleep?from=2026-01-01&to=2026-01-01", token: token).status == .ok
            },
            // A section's key names the caller's own briefing, never another user's (ClientIsolationTests
            // checks that B's section shows none of A's figures).
            ownWrites: [(.get, "/api/section/{key}", nil)]),
        Case(
            description: "event webhooks",
            create: { http, token in
                try await http.call(.post, "/api/v1/webhooks", token: token,
                                    json: #"{"url":"https://hooks.example.com/a","events":["task.completed"]}"#).string("id") ?? ""
            },
            attempts: [(.delete, "/api/v1/webhooks/{id}", nil), (.post, "/api/v1/webhooks/{id}/test", nil), (.get, "/api/v1/webhooks/{id}/deliveries", nil)],
            intact: { http, token, id in
                let items = try await http.call(.get, "/api/v1/webhooks", token: token).object["items"] as? [[String: Any]]
                return items?.map { $0["id"] as? String } == [id]
            }),
        Case(
            description: "reminders",
            create: { _, _ in "" },
            attempts: [(.post, "/api/v1/reminders/{id}/ack", nil)],
            intact: { http, token, id in
                let items = try await http.call(.get, "/api/v1/reminders?status=pending", token: token).object["items"] as? [[String: Any]]
                return items?.map { $0["id"] as? String } == [id]
            },
            createInDatabase: { harness, http, token in
                // A reminder as the planner writes it: the job plans, no route creates.
                let me = try #require(UUID(uuidString: try await http.call(.get, "/api/v1/me", token: token).string("id") ?? ""))
                let id = UUID()
                try await harness.client.query("""
                    INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status, created_at)
                    VALUES (\(id), \(me), \("\(me)/morning_digest/digest/2026-01-01T08:00"), 'reminder', 'morning_digest', 'digest',
                            now(), '2026-01-01T08:00', 'Your day', 'Habits due: 1', '{}', 'pending', now())
                    """)
                return id.uuidString.lowercased()
            }),
    ]

    /// Values for the path parameters other than the resource's own id.
    static func concrete(_ path: String, id: String) -> String {
        path.replacingOccurrences(of: "{id}", with: id)
            .replacingOccurrences(of: "{date}", with: "2026-01-01")
            .replacingOccurrences(of: "{metric}", with: "steps")
            .replacingOccurrences(of: "{freeze_id}", with: "00000000-0000-0000-0000-000000000000")
            .replacingOccurrences(of: "{tid}", with: "00000000-0000-0000-0000-000000000000")
            .replacingOccurrences(of: "{user_id}", with: "00000000-0000-0000-0000-000000000000")
            .replacingOccurrences(of: "{invitation_id}", with: "00000000-0000-0000-0000-000000000000")
            .replacingOccurrences(of: "{key}", with: "sleep")
    }

    /// Forgetting is impossible: every registered route with a path parameter has a case here,
    /// so a new area's `{id}` routes fail this test until their isolation is tested.
    @Test func everyRouteWithAPathParameterHasAnIsolationCase() async throws {
        try await TestDatabase.withAppClient { _, client in
            let routes = RouteTable()
            _ = buildRouter(try await AppDependencies.forTests(client: client), routes: routes)
            let parameterized = Set(routes.all().compactMap { route -> String? in
                // The router writes parameters as {id} or :id; the cases as {id}.
                let path = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                guard path.contains(where: { $0.hasPrefix("{") }) else { return nil }
                return "\(route.method) /" + path.joined(separator: "/")
            })
            let covered = Set(Self.cases.flatMap { ($0.attempts + $0.ownWrites).map { "\($0.method) \($0.path)" } })
            #expect(parameterized.subtracting(covered).sorted() == [], "routes with a path parameter but no isolation case")
            #expect(parameterized.count >= 15)
        }
    }

    @Test(arguments: cases)
    func anotherUsersResourceIsNotFound(_ item: Case) async throws {
        try await AppHarness.with { harness, http in
            let a = try #require(try await http.register("owner@example.com").string("access_token"))
            let b = try #require(try await http.register("intruder@example.com").string("access_token"))
            let id: String
            if let createInDatabase = item.createInDatabase { id = try await createInDatabase(harness, http, a) } else { id = try await item.create(http, a) }
            #expect(!id.isEmpty)
            for attempt in item.attempts {
                let response = try await http.call(attempt.method, Self.concrete(attempt.path, id: id), token: b, json: attempt.json)
                #expect(response.status == .notFound, "\(attempt.method) \(attempt.path)")
            }
            for write in item.ownWrites {
                let response = try await http.call(write.method, Self.concrete(write.path, id: id), token: b, json: write.json)
                #expect((200..<300).contains(response.status.code), "\(write.method) \(write.path): \(response.text)")
            }
            #expect(try await item.intact(http, a, id))
        }
    }
}
