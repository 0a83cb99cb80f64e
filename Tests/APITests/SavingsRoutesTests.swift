import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct SavingsRoutesTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0) }

    static func goal(_ http: any TestClientProtocol, _ token: String, _ json: String = #"{"name":"Trip","currency":"EUR"}"#) async throws -> String {
        let created = try await http.call(.post, "/api/v1/savings/goals", token: token, json: json)
        #expect(created.status == .created, "\(created.text)")
        return try #require(created.string("id"))
    }

    @discardableResult
    static func move(_ http: any TestClientProtocol, _ token: String, _ goal: String, _ json: String) async throws -> JSONResponse {
        try await http.call(.post, "/api/v1/savings/goals/\(goal)/transactions", token: token, json: json)
    }

    static func occurrences(_ response: JSONResponse, _ key: String) -> [[String: Any]] { response.object[key] as? [[String: Any]] ?? [] }

    /// A new user's goal with one payment of 100 due 2025-05-10, and a deposit of 60 towards it.
    static func sixtyTowardsAHundred(_ http: any TestClientProtocol, _ email: String) async throws -> (token: String, goal: String, sixty: String) {
        let token = try #require(try await http.register(email).string("access_token"))
        let id = try await goal(http, token)
        _ = try await http.call(.put, "/api/v1/savings/goals/\(id)/plan", token: token,
                                json: #"{"amount":"100","anchor_day":10,"start_month":"2025-05","end_month":"2025-05"}"#)
        let sixty = try #require(try await move(http, token, id, #"{"kind":"deposit","amount":"60","date":"2025-05-01"}"#).string("id"))
        return (token, id, sixty)
    }

    @Test func theOverviewListsEveryOverduePaymentAsOfADate() async throws {
        try await AppHarness.with(now: Self.at("2025-04-10T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("saver@example.com").string("access_token"))
            let id = try await Self.goal(http, token, #"{"name":"Trip","emoji":"✈️","currency":"EUR","target_amount":"1200","target_date":"2025-12-31"}"#)
            let plan = try await http.call(.put, "/api/v1/savings/goals/\(id)/plan", token: token,
                                           json: #"{"amount":"100","anchor_day":31,"every_months":1,"start_month":"2025-01"}"#)
            #expect(plan.status == .ok, "\(plan.text)")
            #expect((plan.object["plan"] as? [String: Any])?["amount"] as? String == "100.00")
            let deposit = try await Self.move(http, token, id, #"{"kind":"deposit","amount":"100.00","date":"2025-01-31"}"#)
            #expect(deposit.status == .created, "\(deposit.text)")
            #expect((deposit.object["pays"] as? [[String: Any]])?.first?["due_date"] as? String == "2025-01-31")

            let march1 = try await http.call(.get, "/api/v1/savings/overview?date=2025-03-01", token: token)
            #expect(march1.status == .ok, "\(march1.text)")
            let overdue = Self.occurrences(march1, "overdues")
            #expect(overdue.map { $0["due_date"] as? String } == ["2025-02-28"])
            #expect(overdue.first?["days_overdue"] as? Int == 1)
            #expect(Self.occurrences(march1, "monthly_payment_details").map { $0["status"] as? String } == ["upcoming"])
            #expect(Self.occurrences(march1, "next_payments").first?["due_date"] as? String == "2025-03-31")
            #expect(march1.object["balances"] as? [[String: String]] == [["currency": "EUR", "amount": "100.00"]])

            let april2 = try await http.call(.get, "/api/v1/savings/overview?date=2025-04-02", token: token)
            #expect(Self.occurrences(april2, "overdues").map { $0["due_date"] as? String } == ["2025-02-28", "2025-03-31"])
            #expect(april2.object["overdue_total"] as? [[String: String]] == [["currency": "EUR", "amount": "200.00"]])

            // The goal as of the logical today (2025-04-10): 1100.00 left over 9 months, rounded up.
            let goal = try await http.call(.get, "/api/v1/savings/goals/\(id)", token: token)
            #expect(goal.string("balance") == "100.00")
            #expect(goal.string("progress_percent") == "8.3")
            #expect(goal.string("monthly_needed") == "122.23")
            #expect(goal.object["overdue_count"] as? Int == 2)
            #expect(goal.string("role") == "owner")
            #expect(goal.object["target_passed"] as? Bool == false)
            #expect(goal.headers[.eTag] == "\"\(goal.object["version"] as? Int ?? -1)\"")
            // As of a date before the deposit, it does not count.
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)?date=2025-01-30", token: token).string("balance") == "0.00")

            // The window asked for never changes a status.
            let window = try await http.call(.get, "/api/v1/savings/goals/\(id)/occurrences?from=2025-02-01&to=2025-02-28&date=2025-04-02", token: token)
            #expect(Self.occurrences(window, "items").map { $0["status"] as? String } == ["overdue"])
            #expect(Self.occurrences(window, "items").first?["remaining"] as? String == "100.00")
        }
    }

    @Test func sixtyAndFortyPayAnOccurrenceAndDeletingTheSixtyUnpaysIt() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { harness, http in
            let (token, id, sixty) = try await Self.sixtyTowardsAHundred(http, "partial@example.com")
            func may(_ date: String) async throws -> [String: Any] {
                let r = try await http.call(.get, "/api/v1/savings/goals/\(id)/occurrences?date=\(date)", token: token)
                return Self.occurrences(r, "items").first ?? [:]
            }
            var occurrence = try await may("2025-05-05")
            #expect(occurrence["status"] as? String == "partial")
            #expect(occurrence["remaining"] as? String == "40.00")
            #expect(try await may("2025-05-11")["status"] as? String == "overdue")
            _ = try await Self.move(http, token, id, #"{"kind":"deposit","amount":"40","date":"2025-05-02","currency":"EUR"}"#)
            #expect(try await may("2025-05-11")["status"] as? String == "paid")
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/transactions/\(sixty)", token: token).status == .noContent)
            occurrence = try await may("2025-05-05")
            #expect(occurrence["paid"] as? String == "40.00")
            #expect(occurrence["status"] as? String == "partial")
            let list = try await http.call(.get, "/api/v1/savings/goals/\(id)/transactions", token: token)
            #expect((list.object["items"] as? [[String: Any]])?.count == 1)
        }
    }

    /// Each instance keeps a goal's plan and movements as its own last command left them; a
    /// change another instance made in between must be what this one's next decision sees.
    @Test func aChangeThroughAnotherInstanceIsSeenByTheNextDeposit() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { harness, http in
            let (token, id, sixty) = try await Self.sixtyTowardsAHundred(http, "twoservers@example.com")
            let other = buildApplication(try await AppDependencies.forTests(client: harness.client, clock: harness.clock))
            try await other.test(.router) { otherHTTP in
                let deleted = try await otherHTTP.call(.delete, "/api/v1/savings/goals/\(id)/transactions/\(sixty)", token: token)
                #expect(deleted.status == .noContent)
            }
            // With the 60 gone, the first instance's next deposit of 70 pays 70 of the 100 due (40 if the 60 still counted).
            let seventy = try await Self.move(http, token, id, #"{"kind":"deposit","amount":"70","date":"2025-05-02"}"#)
            #expect(seventy.status == .created, "\(seventy.text)")
            #expect((seventy.object["pays"] as? [[String: Any]])?.first?["amount"] as? String == "70.00")
            let occurrence = Self.occurrences(try await http.call(.get, "/api/v1/savings/goals/\(id)/occurrences?date=2025-05-11", token: token), "items").first
            #expect(occurrence?["status"] as? String == "overdue")
            #expect(occurrence?["paid"] as? String == "70.00")
        }
    }

    @Test func badMovementsAreRefusedNamingTheField() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("refuse@example.com").string("access_token"))
            let id = try await Self.goal(http, token)
            _ = try await Self.move(http, token, id, #"{"kind":"deposit","amount":"50","date":"2025-05-01"}"#)
            func field(_ json: String) async throws -> [String] {
                let r = try await Self.move(http, token, id, json)
                #expect(r.status == .unprocessableContent, "\(json): \(r.text)")
                return (r.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
            }
            #expect(try await field(#"{"kind":"withdrawal","amount":"50.01","date":"2025-05-02"}"#) == ["amount"])
            #expect(try await field(#"{"kind":"withdrawal","amount":"10","date":"2025-04-30"}"#) == ["amount"])
            #expect(try await field(#"{"kind":"deposit","amount":"10","date":"2025-05-02","currency":"USD"}"#) == ["currency"])
            #expect(try await field(#"{"kind":"deposit","amount":10,"date":"2025-05-02"}"#) == ["amount"])
            #expect(try await field(#"{"kind":"deposit","amount":"1,000","date":"2025-05-02"}"#) == ["amount"])
            #expect(try await field(#"{"kind":"deposit","amount":"10"}"#) == ["date"])
            #expect(try await Self.move(http, token, id, #"{"kind":"withdrawal","amount":"50.00","date":"2025-05-02"}"#).status == .created)
            let goal = try await http.call(.get, "/api/v1/savings/goals/\(id)", token: token)
            #expect(goal.string("balance") == "0.00")
            // Without a target or a plan these figures are null, not absent.
            #expect(goal.object["monthly_needed"] is NSNull)
            #expect(goal.object["progress_percent"] is NSNull)
            #expect(goal.object["next_payment"] is NSNull)

            let jpy = try await Self.goal(http, token, #"{"name":"Yen","currency":"JPY","target_amount":"100.5"}"#.replacingOccurrences(of: "100.5", with: "1500"))
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(jpy)", token: token).string("target_amount") == "1500")
            let badYen = try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"Yen","currency":"JPY","target_amount":"100.5"}"#)
            #expect(badYen.status == .unprocessableContent)
        }
    }

    @Test func aSharedGoalIsReadAndFedByItsMemberAndOnlyItsOwnerEditsIt() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { harness, http in
            let owner = try #require(try await http.register("owner@example.com").string("access_token"))
            let member = try #require(try await http.register("member@example.com").string("access_token"))
            let stranger = try #require(try await http.register("stranger@example.com").string("access_token"))
            let id = try await Self.goal(http, owner)
            let ownersDeposit = try #require(try await Self.move(http, owner, id, #"{"kind":"deposit","amount":"20","date":"2025-05-01"}"#).string("id"))
            #expect(try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: owner, json: #"{"email":"nobody@example.com"}"#)
                .status == .unprocessableContent)
            let added = try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: owner, json: #"{"email":"Member@example.com"}"#)
            #expect(added.status == .created, "\(added.text)")
            let memberId = try #require(added.string("user_id"))
            #expect(added.string("role") == "member")

            // The member reads and deposits.
            let seen = try await http.call(.get, "/api/v1/savings/goals", token: member)
            let items = seen.object["items"] as? [[String: Any]] ?? []
            #expect(items.map { $0["role"] as? String } == ["member"])
            let deposit = try await Self.move(http, member, id, #"{"kind":"deposit","amount":"30","date":"2025-05-02"}"#)
            #expect(deposit.status == .created)
            #expect(deposit.string("created_by") == memberId)
            let overview = try await http.call(.get, "/api/v1/savings/overview", token: member)
            #expect(overview.object["balances"] as? [[String: String]] == [["currency": "EUR", "amount": "50.00"]])
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: owner).string("balance") == "50.00")
            #expect((try await http.call(.get, "/api/v1/savings/goals/\(id)/members", token: member).object["items"] as? [[String: Any]])?.count == 2)

            // Only the owner edits; the member's own transactions are theirs to delete.
            #expect(try await http.call(.patch, "/api/v1/savings/goals/\(id)", token: member, json: #"{"name":"Mine"}"#).status == .forbidden)
            // A stale If-Match does not turn the member's 403 into a 412.
            #expect(try await http.call(.patch, "/api/v1/savings/goals/\(id)", token: member, headers: [.ifMatch: "\"1\""], json: #"{"name":"Mine"}"#).status == .forbidden)
            #expect(try await http.call(.put, "/api/v1/savings/goals/\(id)/plan", token: member,
                                        json: #"{"amount":"1","anchor_day":"last","start_month":"2025-05"}"#).status == .forbidden)
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)", token: member).status == .forbidden)
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/transactions/\(ownersDeposit)", token: member).status == .forbidden)
            #expect(try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: member, json: #"{"email":"stranger@example.com"}"#)
                .status == .forbidden)

            // A stranger learns nothing.
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: stranger).status == .notFound)
            #expect(try await Self.move(http, stranger, id, #"{"kind":"deposit","amount":"1","date":"2025-05-02"}"#).status == .notFound)

            // Removed, the former member gets 404 at once; their deposit stays in the goal.
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/members/\(memberId)", token: owner).status == .noContent)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: member).status == .notFound)
            #expect(try await Self.move(http, member, id, #"{"kind":"deposit","amount":"1","date":"2025-05-02"}"#).status == .notFound)
            #expect((try await http.call(.get, "/api/v1/savings/goals", token: member).object["items"] as? [[String: Any]])?.isEmpty == true)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: owner).string("balance") == "50.00")
            // The owner's edits still work, with If-Match.
            let version = try #require(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: owner).headers[.eTag])
            #expect(try await http.call(.patch, "/api/v1/savings/goals/\(id)", token: owner, headers: [.ifMatch: "\"1\""], json: #"{"name":"X"}"#)
                .status == .preconditionFailed)
            #expect(try await http.call(.patch, "/api/v1/savings/goals/\(id)", token: owner, headers: [.ifMatch: version], json: #"{"name":"Ours"}"#)
                .string("name") == "Ours")
        }
    }

    @Test func aRetriedDepositWithTheSameIdempotencyKeyIsStoredOnce() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("retry@example.com").string("access_token"))
            let id = try await Self.goal(http, token)
            let json = #"{"kind":"deposit","amount":"10","date":"2025-05-01"}"#
            let key = try #require(HTTPField.Name("Idempotency-Key"))
            let first = try await http.call(.post, "/api/v1/savings/goals/\(id)/transactions", token: token, headers: [key: "dep-1"], json: json)
            let second = try await http.call(.post, "/api/v1/savings/goals/\(id)/transactions", token: token, headers: [key: "dep-1"], json: json)
            #expect(first.status == .created)
            #expect(second.string("id") == first.string("id"))
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: token).string("balance") == "10.00")
        }
    }
    /// Issue 24 item 11: `overdue_total` clamped at Int64.max minor units. 31 goals in KWD, each
    /// owing 999999999999.999 on the 1st of every month since 2000-01, owe 9,455 payments as of
    /// 2025-05-05: 9,454,999,999,999,990,545 minor units, summed exactly.
    @Test func overdueTotalsPastInt64AreExact() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("owing@example.com").string("access_token"))
            for n in 0..<31 {
                let id = try await Self.goal(http, token, #"{"name":"Owed \#(n)","currency":"KWD"}"#)
                let plan = try await http.call(.put, "/api/v1/savings/goals/\(id)/plan", token: token,
                                               json: #"{"amount":"999999999999.999","anchor_day":1,"start_month":"2000-01"}"#)
                #expect(plan.status == .ok, "\(plan.text)")
            }
            let overview = try await http.call(.get, "/api/v1/savings/overview?date=2025-05-05", token: token)
            #expect(overview.status == .ok, "\(overview.text)")
            #expect(overview.object["overdue_total"] as? [[String: String]] == [["currency": "KWD", "amount": "9454999999999990.545"]])
            #expect(Self.occurrences(overview, "overdues").count == 31 * 305)
        }
    }
}
