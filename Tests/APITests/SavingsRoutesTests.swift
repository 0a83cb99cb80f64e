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
            #expect(occurrence?["color_token"] as? String == "ds.semantic.negative")
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
            let invited = try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: owner, json: #"{"email":"Member@example.com"}"#)
            #expect(invited.status == .created, "\(invited.text)")
            let accepted = try await http.call(.post, "/api/v1/savings/invitations/\(invited.string("id") ?? "")/accept", token: member)
            #expect(accepted.status == .ok, "\(accepted.text)")
            #expect(accepted.string("role") == "member")
            let memberId = try #require(try await http.call(.get, "/api/v1/me", token: member).string("id"))

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

    static func registerNamed(_ http: any TestClientProtocol, _ email: String, name: String) async throws -> (token: String, id: String) {
        let answer = try await http.call(.post, "/api/v1/auth/register",
                                         json: #"{"email":"\#(email)","password":"correct horse battery","name":"\#(name)","timezone":"Europe/Belgrade"}"#)
        let token = try #require(answer.string("access_token"))
        return (token, try #require(try await http.call(.get, "/api/v1/me", token: token).string("id")))
    }

    static func items(_ response: JSONResponse) -> [[String: Any]] { response.object["items"] as? [[String: Any]] ?? [] }

    /// Issue 24 item 8: an owner could add any account by email, without its consent, and then
    /// saw its name and email. Now the account is invited, sees the invitation, and joins only by
    /// accepting; until then the owner sees only the address they typed and the status, and the
    /// invitee can neither see nor touch the goal.
    @Test func sharingNeedsTheInviteesConsent() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { harness, http in
            let (owner, _) = try await Self.registerNamed(http, "ana@example.com", name: "Ana Owner")
            let (invitee, inviteeId) = try await Self.registerNamed(http, "bo@example.com", name: "Bo Secret")
            let id = try await Self.goal(http, owner, #"{"name":"Flat","currency":"EUR"}"#)
            _ = try await Self.move(http, owner, id, #"{"kind":"deposit","amount":"20","date":"2025-05-01"}"#)

            let invited = try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: owner, json: #"{"email":" Bo@Example.com "}"#)
            #expect(invited.status == .created, "\(invited.text)")
            let invitation = try #require(invited.string("id"))
            #expect(Set(invited.object.keys) == ["id", "email", "status", "invited_at", "expires_at"])
            #expect(invited.string("email") == "Bo@Example.com")
            #expect(invited.string("status") == "pending")
            #expect(invited.string("invited_at") == "2025-05-05T10:00:00Z")
            #expect(invited.string("expires_at") == "2025-05-19T10:00:00Z")
            // Inviting again while it is pending changes nothing and answers the same invitation.
            let again = try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: owner, json: #"{"email":"bo@example.com"}"#)
            #expect(again.status == .ok)
            #expect(again.string("id") == invitation)

            // The owner sees the address they typed and the status: never the invitee's name or id.
            let listed = try await http.call(.get, "/api/v1/savings/goals/\(id)/invitations", token: owner)
            #expect(Self.items(listed).map { $0["email"] as? String } == ["Bo@Example.com"])
            #expect(Self.items(listed).map { $0["status"] as? String } == ["pending"])
            let members = try await http.call(.get, "/api/v1/savings/goals/\(id)/members", token: owner)
            #expect(Self.items(members).map { $0["role"] as? String } == ["owner"])
            for answer in [invited, again, listed, members] {
                #expect(!answer.text.contains("Bo Secret") && !answer.text.contains(inviteeId), "\(answer.text)")
            }

            // The invitee, until they accept, can neither see nor touch the goal.
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/goals", token: invitee)).isEmpty)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: invitee).status == .notFound)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)/members", token: invitee).status == .notFound)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)/transactions", token: invitee).status == .notFound)
            #expect(try await Self.move(http, invitee, id, #"{"kind":"deposit","amount":"1","date":"2025-05-02"}"#).status == .notFound)
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/members/\(inviteeId)", token: invitee).status == .notFound)
            #expect((try await http.call(.get, "/api/v1/savings/overview", token: invitee).object["balances"] as? [Any])?.isEmpty == true)
            // What they see of it: enough to decide.
            let mine = try await http.call(.get, "/api/v1/savings/invitations", token: invitee)
            #expect(mine.status == .ok, "\(mine.text)")
            let received = try #require(Self.items(mine).first)
            #expect(Set(received.keys) == ["id", "goal_name", "owner_name", "owner_email", "invited_at", "expires_at"])
            #expect(received["id"] as? String == invitation && received["goal_name"] as? String == "Flat")
            #expect(received["owner_name"] as? String == "Ana Owner" && received["owner_email"] as? String == "ana@example.com")
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/invitations", token: owner)).isEmpty)

            // Accepted: a member, who sees and feeds the goal; the owner now sees their name.
            let accepted = try await http.call(.post, "/api/v1/savings/invitations/\(invitation)/accept", token: invitee)
            #expect(accepted.status == .ok, "\(accepted.text)")
            #expect(accepted.string("id") == id && accepted.string("role") == "member" && accepted.string("balance") == "20.00")
            #expect(try await http.call(.post, "/api/v1/savings/invitations/\(invitation)/accept", token: invitee).status == .ok)
            #expect(try await Self.move(http, invitee, id, #"{"kind":"deposit","amount":"5","date":"2025-05-02"}"#).status == .created)
            let shared = try await http.call(.get, "/api/v1/savings/goals/\(id)/members", token: owner)
            #expect(Self.items(shared).map { $0["name"] as? String } == ["Ana Owner", "Bo Secret"])
            #expect(Self.items(shared).last?["user_id"] as? String == inviteeId)
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/goals/\(id)/invitations", token: owner)).isEmpty)
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/invitations", token: invitee)).isEmpty)
            #expect(try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: owner, json: #"{"email":"bo@example.com"}"#).status == .conflict)
            // A member may not see the goal's invitations, nor withdraw one, nor invite.
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)/invitations", token: invitee).status == .forbidden)
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/invitations/\(invitation)", token: invitee).status == .forbidden)
            #expect(try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: invitee, json: #"{"email":"ana@example.com"}"#)
                .status == .forbidden)

            // A member leaves on their own: access ends at once; their deposit stays in the goal.
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/members/\(inviteeId)", token: invitee).status == .noContent)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: invitee).status == .notFound)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: owner).string("balance") == "25.00")
            // The old invitation cannot bring them back.
            #expect(try await http.call(.post, "/api/v1/savings/invitations/\(invitation)/accept", token: invitee).status == .notFound)
        }
    }

    @Test func aDeclinedOrExpiredInvitationCanBeSentAgainAndTheOwnerCanWithdrawOne() async throws {
        try await AppHarness.with(now: Self.at("2025-05-05T10:00:00Z")) { harness, http in
            var (owner, _) = try await Self.registerNamed(http, "ana@example.com", name: "Ana")
            var (invitee, _) = try await Self.registerNamed(http, "bo@example.com", name: "Bo")
            var (other, _) = try await Self.registerNamed(http, "cy@example.com", name: "Cy")
            /// Moves the clock, and logs everyone in again (access tokens last 15 minutes).
            func advance(by seconds: TimeInterval) async throws {
                harness.clock.advance(by: seconds)
                func login(_ email: String) async throws -> String {
                    try #require(try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"\#(email)","password":"correct horse battery"}"#)
                        .string("access_token"))
                }
                (owner, invitee, other) = (try await login("ana@example.com"), try await login("bo@example.com"), try await login("cy@example.com"))
            }
            let id = try await Self.goal(http, owner)
            func invite(_ email: String = "bo@example.com") async throws -> String {
                let answer = try await http.call(.post, "/api/v1/savings/goals/\(id)/members", token: owner, json: #"{"email":"\#(email)"}"#)
                #expect(answer.status == .created, "\(answer.text)")
                return answer.string("id") ?? ""
            }
            func statuses() async throws -> [String?] {
                Self.items(try await http.call(.get, "/api/v1/savings/goals/\(id)/invitations", token: owner)).map { $0["status"] as? String }
            }

            // Declined: the owner sees it declined; it can no longer be accepted.
            let first = try await invite()
            #expect(try await http.call(.post, "/api/v1/savings/invitations/\(first)/decline", token: invitee).status == .noContent)
            #expect(try await statuses() == ["declined"])
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/invitations", token: invitee)).isEmpty)
            #expect(try await http.call(.post, "/api/v1/savings/invitations/\(first)/accept", token: invitee).status == .conflict)
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: invitee).status == .notFound)

            // Invited again: a new invitation replaces it, and it expires 14 days later by the server's clock.
            let second = try await invite()
            #expect(second != first)
            #expect(try await statuses() == ["pending"])
            try await advance(by: 14 * 86_400 - 1)
            #expect(try await statuses() == ["pending"])
            try await advance(by: 1)
            #expect(try await statuses() == ["expired"])
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/invitations", token: invitee)).isEmpty)
            let late = try await http.call(.post, "/api/v1/savings/invitations/\(second)/accept", token: invitee)
            #expect(late.status == .conflict)
            #expect(late.string("detail")?.contains("expired") == true, "\(late.text)")
            #expect(try await http.call(.get, "/api/v1/savings/goals/\(id)", token: invitee).status == .notFound)

            // Invited once more, in time: accepted.
            let third = try await invite()
            #expect(try await http.call(.post, "/api/v1/savings/invitations/\(third)/accept", token: invitee).string("role") == "member")

            // Withdrawn: the invitee no longer sees it, and cannot answer it.
            let withdrawn = try await invite("cy@example.com")
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/invitations", token: other)).count == 1)
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/invitations/\(withdrawn)", token: owner).status == .noContent)
            #expect(try await statuses() == [])
            #expect(Self.items(try await http.call(.get, "/api/v1/savings/invitations", token: other)).isEmpty)
            #expect(try await http.call(.post, "/api/v1/savings/invitations/\(withdrawn)/accept", token: other).status == .notFound)
            #expect(try await http.call(.post, "/api/v1/savings/invitations/\(withdrawn)/decline", token: other).status == .notFound)
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/invitations/\(withdrawn)", token: owner).status == .notFound)
            // An accepted invitation is not withdrawn: the member is removed instead.
            #expect(try await http.call(.delete, "/api/v1/savings/goals/\(id)/invitations/\(third)", token: owner).status == .conflict)
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
