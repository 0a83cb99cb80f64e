import API
import AsyncHTTPClient
import Core
import Crypto
import Domain
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Projections
import Testing
import TestSupport

/// The reminder job against a real database, with the clock fixed: exactly once, after an
/// outage only the latest, pushes signed and retried, pulls and acknowledgements.
@Suite struct ReminderJobTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0) }

    /// A job over the harness's database and clock.
    static func withJob(_ harness: AppHarness, allowPrivate: Bool = true, _ body: (ReminderJob) async throws -> Void) async throws {
        let store = PostgresEventStore(client: harness.client, keyring: AppHarness.keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: TestDatabase.logger)
        let http = WebhookSender.makeClient()
        do {
            try await body(ReminderJob(store: store, http: http, planning: harness.services.planning, allowPrivateWebhooks: allowPrivate,
                                       sealer: harness.accounts.secretSealer, clock: harness.clock, logger: TestDatabase.logger))
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    /// A New York user with one daily habit from 2024-05-01; their token.
    static func userWithAHabit(_ http: any TestClientProtocol, _ email: String) async throws -> String {
        let token = try #require(try await http.register(email, timezone: "America/New_York").string("access_token"))
        let created = try await http.call(.post, "/api/v1/habits", token: token,
                                          json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2024-05-01"}"#)
        #expect(created.status == .created, "\(created.text)")
        return token
    }

    /// A fresh token: moving the clock a day expires the first.
    static func login(_ http: any TestClientProtocol, _ email: String) async throws -> String {
        try #require(try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"\#(email)","password":"correct horse battery"}"#).string("access_token"))
    }

    func rows(_ harness: AppHarness, _ kind: String, _ status: String) async throws -> [String] {
        var found: [String] = []
        for try await local in try await harness.client.query("""
            SELECT due_local FROM reminder_outbox WHERE kind = \(kind) AND status = \(status) ORDER BY due_at
            """).decode(String.self) { found.append(local) }
        return found
    }

    @Test func twoRunsAtOnceQueueEachReminderOnceAndANewInstallStartsFromItsFirstRun() async throws {
        try await AppHarness.with(now: Self.at("2024-05-02T10:00:00Z")) { harness, http in
            _ = try await Self.userWithAHabit(http, "once@example.com")
            try await Self.withJob(harness) { job in
                // The first run only sets where planning starts: the 08:00 already past is not sent.
                let first = try await job.run()
                #expect(first.queued == 0 && first.planned)
                harness.clock.advance(by: 86_400)  // to 2024-05-03 06:00 in New York: the 2nd's 08:00 and 20:00 are due
                async let a = job.run()
                async let b = job.run()
                let (ra, rb) = try await (a, b)
                #expect(ra.queued + rb.queued == 2, "\(ra) / \(rb)")
                #expect(try await rows(harness, "morning_digest", "pending") == ["2024-05-02T08:00"])
                #expect(try await rows(harness, "evening_nudge", "pending") == ["2024-05-02T20:00"])
                // Planning the same window again (a rerun after a crash) adds nothing.
                #expect(try await job.run().queued == 0)
                #expect(try await harness.count("SELECT count(*) FROM reminder_outbox") == 2)
            }
        }
    }

    /// Issue 30: the job finds who has something due in a minute by index, per zone. Run minute
    /// by minute, it queues exactly what is due that minute, across zones, and a minute with
    /// nothing due reads nobody.
    @Test func minuteByMinuteOnlyWhatIsDueThatMinuteIsQueuedInEveryZone() async throws {
        // 07:58 in New York (EDT), 13:58 in Belgrade (CEST)
        try await AppHarness.with(now: Self.at("2024-05-02T11:58:00Z")) { harness, http in
            _ = try await Self.userWithAHabit(http, "ny@example.com")
            let early = try await Self.userWithAHabit(http, "early@example.com")
            let reminded = try await http.call(.post, "/api/v1/habits", token: early,
                                               json: #"{"name":"Stretch","kind":"boolean","schedule":{"type":"daily"},"start_date":"2024-05-01","reminder_time":"07:59"}"#)
            #expect(reminded.status == .created, "\(reminded.text)")
            let belgrade = try #require(try await http.register("bg@example.com", timezone: "Europe/Belgrade").string("access_token"))
            _ = try await http.call(.post, "/api/v1/habits", token: belgrade,
                                    json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2024-05-01"}"#)
            try await Self.withJob(harness) { job in
                _ = try await job.run()  // where planning starts: 11:58
                harness.clock.advance(by: 60)  // 07:59 in New York: the early habit's own reminder
                let minute = try await job.run()
                #expect(minute.queued == 1, "\(minute)")
                #expect(try await rows(harness, "habit", "pending") == ["2024-05-02T07:59"])
                #expect(try await rows(harness, "morning_digest", "pending") == [])
                harness.clock.advance(by: 60)  // 08:00 in New York: both New Yorkers' digests; 14:00 in Belgrade: nothing
                #expect(try await job.run().queued == 2)
                #expect(try await rows(harness, "morning_digest", "pending") == ["2024-05-02T08:00", "2024-05-02T08:00"])
                // 08:00:30: no minute starts in the window, so nobody is even a candidate.
                harness.clock.advance(by: 30)
                #expect(try await harness.services.planning.candidates(from: Self.at("2024-05-02T12:00:00Z"), to: harness.clock.now()).isEmpty)
                #expect(try await job.run().queued == 0)
                // 08:01 to 13:59: the New Yorkers have nothing until 20:00; Belgrade's 20:00 is 14:00 in New York.
                harness.clock.advance(by: 30)
                let quiet = try await harness.services.planning.candidates(from: Self.at("2024-05-02T12:00:30Z"), to: Self.at("2024-05-02T17:59:00Z"))
                #expect(quiet.isEmpty, "\(quiet.map(\.userId))")
                harness.clock.advance(by: 6 * 3_600)  // 14:01 in New York, 20:01 in Belgrade
                #expect(try await job.run().queued == 1)
                #expect(try await rows(harness, "evening_nudge", "pending") == ["2024-05-02T20:00"])
            }
        }
    }

    @Test func afterThreeDaysDownOnlyTheLatestOfEachIsQueuedAndTheRestAreSkipped() async throws {
        try await AppHarness.with(now: Self.at("2024-05-02T10:00:00Z")) { harness, http in
            _ = try await Self.userWithAHabit(http, "outage@example.com")
            try await Self.withJob(harness) { job in
                _ = try await job.run()
                harness.clock.advance(by: 3 * 86_400)  // 2024-05-05 06:00 in New York
                let report = try await job.run()
                #expect(report.queued == 2 && report.skipped == 4, "\(report)")
                #expect(try await rows(harness, "morning_digest", "pending") == ["2024-05-04T08:00"])
                #expect(try await rows(harness, "morning_digest", "skipped") == ["2024-05-02T08:00", "2024-05-03T08:00"])
                #expect(try await rows(harness, "evening_nudge", "pending") == ["2024-05-04T20:00"])
                #expect(try await rows(harness, "evening_nudge", "skipped") == ["2024-05-02T20:00", "2024-05-03T20:00"])
            }
        }
    }

    @Test func aSignedPushIsRetriedAfterA500AndDeliveredOnceEvenAfterACrashBeforeDelivery() async throws {
        try await WebhookReceiver.with(statuses: [500]) { receiver, url in
            try await AppHarness.with(now: Self.at("2024-05-02T10:00:00Z"), allowPrivateWebhooks: true) { harness, http in
                let token = try await Self.userWithAHabit(http, "push@example.com")
                let set = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"reminders":{"webhook_url":"\#(url)","enabled_kinds":["morning_digest"]}}"#)
                #expect(set.status == .ok, "\(set.text)")
                let reminders = try #require(set.object["reminders"] as? [String: Any])
                let secret = try #require(reminders["webhook_secret"] as? String)
                #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
                #expect(reminders["webhook_status"] as? String == "active")
                // GET /me shows the URL, never the secret.
                let me = try await http.call(.get, "/api/v1/me", token: token)
                #expect((me.object["reminders"] as? [String: Any])?["webhook_url"] as? String == url)
                #expect(!me.text.contains(secret) && !me.text.contains("webhook_secret"))

                try await Self.withJob(harness) { job in
                    _ = try await job.run()
                    harness.clock.advance(by: 86_400)
                    // Killed after planning, before delivery: planned, nothing sent.
                    #expect(try await job.plan().queued == 1)
                    #expect(receiver.requests.isEmpty)
                    // The next run delivers; the receiver's 500 is a failed attempt, retried about 5 s later.
                    let first = try await job.run()
                    #expect(first.delivered == 0 && first.failedAttempts == 1, "\(first)")
                    #expect(try await job.run().failedAttempts == 0, "not retried before its wait")
                    harness.clock.advance(by: 10)
                    let second = try await job.run()
                    #expect(second.delivered == 1, "\(second)")
                    harness.clock.advance(by: 3_600)
                    #expect(try await job.run().delivered == 0, "delivered once")
                }
                let requests = receiver.requests
                #expect(requests.count == 2)
                #expect(Set(requests.map(\.id)).count == 1, "the same webhook-id on every attempt")
                #expect(requests.first?.id.hasSuffix("/morning_digest/digest/2024-05-02T08:00") == true)
                let key = try #require(Data(base64Encoded: String(secret.dropFirst(6))))
                for request in requests {
                    let mac = HMAC<SHA256>.authenticationCode(for: Data("\(request.id).\(request.timestamp).\(request.body)".utf8), using: SymmetricKey(data: key))
                    #expect(request.signature == "v1," + Data(mac).base64EncodedString())
                }
                let body = try #require(try JSONSerialization.jsonObject(with: Data((requests.last?.body ?? "").utf8)) as? [String: Any])
                #expect(body["type"] as? String == "reminder.morning_digest")
                #expect((body["data"] as? [String: Any])?["title"] as? String == "Your day")
                let pulled = try await http.call(.get, "/api/v1/reminders?status=all", token: try await Self.login(http, "push@example.com"))
                let item = try #require((pulled.object["items"] as? [[String: Any]])?.first)
                #expect(item["status"] as? String == "delivered")
                #expect(item["attempts"] as? Int == 2)
                #expect(item["last_status"] as? Int == 204)
            }
        }
    }

    @Test func eventWebhooksReceiveChosenDomainEventsAndRemindersSigned() async throws {
        try await WebhookReceiver.with { receiver, url in
            try await AppHarness.with(now: Self.at("2024-05-02T10:00:00Z"), asyncProjectors: true, allowPrivateWebhooks: true) { harness, http in
                let token = try await Self.userWithAHabit(http, "events@example.com")
                let made = try await http.call(.post, "/api/v1/webhooks", token: token,
                                               json: #"{"url":"\#(url)","events":["task.completed","habit.completed","reminder.*"]}"#)
                #expect(made.status == .created, "\(made.text)")
                let secret = try #require(made.string("secret"))
                let id = try #require(made.string("id"))
                let listed = try await http.call(.get, "/api/v1/webhooks", token: token)
                #expect(!listed.text.contains(secret) && listed.text.contains(id))
                let bad = try await http.call(.post, "/api/v1/webhooks", token: token, json: #"{"url":"\#(url)","events":["task.exploded"]}"#)
                #expect(bad.fieldErrors == ["events"])

                let task = try #require(try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Call the bank"}"#).string("id"))
                _ = try await http.call(.post, "/api/v1/tasks/\(task)/complete", token: token)
                let habits = try await http.call(.get, "/api/v1/habits", token: token).object["items"] as? [[String: Any]]
                let habit = try #require(habits?.first?["id"] as? String)
                // A second habit stays open, so the 2nd has a digest and a nudge to copy.
                _ = try await http.call(.post, "/api/v1/habits", token: token,
                                        json: #"{"name":"Walk","kind":"boolean","schedule":{"type":"daily"},"start_date":"2024-05-01"}"#)
                _ = try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: token, json: #"{"date":"2024-05-02"}"#)
                let tested = try await http.call(.post, "/api/v1/webhooks/\(id)/test", token: token)
                #expect(tested.object["delivered"] as? Bool == true, "\(tested.text)")

                // The async projector queues the two events; the job pushes them.
                var queued = 0
                for _ in 0..<150 where queued < 2 {
                    queued = try await harness.count("SELECT count(*) FROM reminder_outbox WHERE channel = 'event'")
                    if queued < 2 { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(queued == 2)
                try await Self.withJob(harness) { job in
                    _ = try await job.run()
                    harness.clock.advance(by: 86_400)
                    _ = try await job.run()  // the 2nd's digest and nudge, copied to the webhook as reminder events
                }
                let key = try #require(Data(base64Encoded: String(secret.dropFirst(6))))
                var types: [String] = []
                for request in receiver.requests {
                    let mac = HMAC<SHA256>.authenticationCode(for: Data("\(request.id).\(request.timestamp).\(request.body)".utf8), using: SymmetricKey(data: key))
                    #expect(request.signature == "v1," + Data(mac).base64EncodedString())
                    let body = try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any]
                    types.append(body?["type"] as? String ?? "?")
                }
                #expect(types.sorted() == ["habit.completed", "reminder.evening_nudge", "reminder.morning_digest", "task.completed", "webhook.test"])
                // The owner sees what went out and how (the test is not a delivery); another user sees nothing of it.
                let fresh = try await Self.login(http, "events@example.com")  // the clock moved a day
                let listedDeliveries = try await http.call(.get, "/api/v1/webhooks/\(id)/deliveries?lang=sr", token: fresh)
                let deliveries = listedDeliveries.object["items"] as? [[String: Any]] ?? []
                #expect(deliveries.compactMap { $0["event"] as? String }.sorted() == ["habit.completed", "reminder.evening_nudge", "reminder.morning_digest", "task.completed"],
                        "\(listedDeliveries.text)")
                #expect(deliveries.allSatisfy { $0["status"] as? String == "delivered" && $0["last_status"] as? Int == 204 && $0["delivered_at"] != nil })
                #expect(deliveries.allSatisfy { ($0["status_label"] as? String).map { !$0.isEmpty && $0 != "delivered" } == true })
                let dues = deliveries.compactMap { $0["due_at"] as? String }
                // Each with its time on the user's wall clock (New York), what the page shows.
                #expect(deliveries.allSatisfy { d in (d["due_at"] as? String).flatMap { wallClock($0, in: "America/New_York") } == d["due_local"] as? String },
                        "\(listedDeliveries.text)")
                #expect(dues == dues.sorted(by: >), "newest first")
                let one = try await http.call(.get, "/api/v1/webhooks/\(id)/deliveries?limit=1", token: fresh)
                #expect((one.object["items"] as? [Any])?.count == 1)
                let other = try #require(try await http.register("stranger@example.com").string("access_token"))
                #expect(try await http.call(.get, "/api/v1/webhooks/\(id)/deliveries", token: other).status == .notFound)
            }
        }
    }

    @Test func aRecoveryScoreIsPushedOncePerDateToTheWebhooksThatAskedForIt() async throws {
        try await WebhookReceiver.with { receiver, url in
            try await AppHarness.with(now: RecoveryRoutesTests.now, asyncProjectors: true, allowPrivateWebhooks: true) { harness, http in
                let token = try #require(try await http.register("scored@example.com", timezone: "UTC").string("access_token"))
                let made = try await http.call(.post, "/api/v1/webhooks", token: token, json: #"{"url":"\#(url)","events":["health.recovery_scored"]}"#)
                #expect(made.status == .created, "\(made.text)")
                // A month of history: only the dates from two days before the webhook was made are pushed.
                let (samples, nights) = RecoveryRoutesTests.history(0...30)
                let position = try await RecoveryRoutesTests.ingest(http, token, samples: samples, nights: nights)
                let today = try await RecoveryRoutesTests.recovery(http, token, "date=\(RecoveryRoutesTests.today)", position: position)
                let score = try #require(today.object["score"] as? Double)
                // The same night sent again re-scores nothing new and pushes nothing twice.
                _ = try await RecoveryRoutesTests.ingest(http, token, nights: [nights[0]])
                try await Self.withJob(harness) { job in _ = try await job.deliver() }
                let bodies = receiver.requests.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any] }
                #expect(bodies.allSatisfy { $0["type"] as? String == "health.recovery_scored" })
                let dates = bodies.compactMap { ($0["data"] as? [String: Any])?["date"] as? String }.sorted()
                #expect(dates == [RecoveryRoutesTests.date(2), RecoveryRoutesTests.date(1), RecoveryRoutesTests.date(0)])
                let todays = bodies.first { ($0["data"] as? [String: Any])?["date"] as? String == RecoveryRoutesTests.today }
                #expect((todays?["data"] as? [String: Any])?["score"] as? Double == score)
            }
        }
    }

    @Test func aPaymentStillUnpaidTheMorningAfterItsDueDateIsPushedAsOverdue() async throws {
        try await WebhookReceiver.with { receiver, url in
            try await AppHarness.with(now: Self.at("2024-06-29T13:00:00Z"), allowPrivateWebhooks: true) { harness, http in
                let token = try #require(try await http.register("late@example.com", timezone: "America/New_York").string("access_token"))
                // Payment reminders off: the webhook alone asks for overdue payments.
                _ = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"reminders":{"enabled_kinds":[]}}"#)
                _ = try await http.call(.post, "/api/v1/webhooks", token: token, json: #"{"url":"\#(url)","events":["savings.payment_overdue"]}"#)
                let goal = try #require(try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"Trip","currency":"EUR"}"#).string("id"))
                // Due on the 31st, so on June 30th; paid 40 of 100.
                _ = try await http.call(.put, "/api/v1/savings/goals/\(goal)/plan", token: token,
                                        json: #"{"amount":"100","anchor_day":31,"start_month":"2024-06","end_month":"2024-06"}"#)
                _ = try await http.call(.post, "/api/v1/savings/goals/\(goal)/transactions", token: token,
                                        json: #"{"kind":"deposit","amount":"40","date":"2024-06-01"}"#)
                try await Self.withJob(harness) { job in
                    _ = try await job.run()
                    harness.clock.advance(by: 2 * 86_400)  // past 08:00 on July 1st in New York
                    _ = try await job.run()
                    harness.clock.advance(by: 86_400)
                    _ = try await job.run()
                }
                let bodies = receiver.requests.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any] }
                #expect(bodies.map { $0["type"] as? String } == ["savings.payment_overdue"])
                let data = bodies.first?["data"] as? [String: Any]
                #expect(data?["due_date"] as? String == "2024-06-30" && data?["amount"] as? String == "60.00" && data?["goal_id"] as? String == goal)
                #expect(bodies.first?["timestamp"] as? String == "2024-07-01T12:00:00Z")
            }
        }
    }

    @Test func privateAndLoopbackWebhooksAreRefusedWhenSavedAndAtDelivery() async throws {
        try await AppHarness.with(now: Self.at("2024-05-02T10:00:00Z")) { harness, http in
            let token = try await Self.userWithAHabit(http, "ssrf@example.com")
            for url in ["http://127.0.0.1:9/hook", "http://10.0.0.1/hook", "http://[::1]/hook", "http://localhost/hook", "http://169.254.169.254/x", "ftp://example.com/x"] {
                let refused = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"name":"Changed","reminders":{"webhook_url":"\#(url)"}}"#)
                #expect(refused.status == .unprocessableContent, "\(url)")
                #expect(refused.fieldErrors == ["reminders.webhook_url"], "\(url)")
            }
            let event = try await http.call(.post, "/api/v1/webhooks", token: token, json: #"{"url":"http://10.0.0.1/x","events":["task.completed"]}"#)
            #expect(event.fieldErrors == ["url"])
            // Nothing was saved, the name included.
            #expect(try await http.call(.get, "/api/v1/me", token: token).string("name") == "Test User")
            // A URL that was allowed when saved is checked again when sent.
            let sender = WebhookSender(http: HTTPClient.shared, allowPrivate: false)
            let outcome = await sender.send(id: "k", body: "{}", to: "http://127.0.0.1:9/hook", secrets: [WebhookSender.newSecret()], at: harness.clock.now())
            guard case .failed(nil, _, nil, false) = outcome else { Issue.record("sent to loopback: \(outcome)"); return }
        }
        #expect(WebhookRules.urlProblem("https://hooks.example.com/x", allowPrivate: false) == nil)
        #expect(WebhookRules.urlProblem("http://192.168.1.10/x", allowPrivate: true) == nil)
        #expect(!WebhookRules.isGlobalUnicast(WebhookRules.addressBytes("::ffff:10.0.0.1") ?? []))
        #expect(WebhookRules.isGlobalUnicast(WebhookRules.addressBytes("2606:4700::1111") ?? []))
    }

    @Test func appsPullPendingRemindersAndAcknowledgeThem() async throws {
        try await AppHarness.with(now: Self.at("2024-05-02T10:00:00Z")) { harness, http in
            let first = try await Self.userWithAHabit(http, "pull@example.com")
            _ = try await http.register("other@example.com")
            _ = try await http.call(.patch, "/api/v1/me", token: first, json: #"{"language":"ru"}"#)
            try await Self.withJob(harness) { job in
                _ = try await job.run()
                harness.clock.advance(by: 86_400)
                _ = try await job.run()
            }
            let token = try await Self.login(http, "pull@example.com"), other = try await Self.login(http, "other@example.com")
            let pending = try await http.call(.get, "/api/v1/reminders", token: token)
            #expect(pending.status == .ok, "\(pending.text)")
            let items = try #require(pending.object["items"] as? [[String: Any]])
            // Newest due first, in the user's language.
            #expect(items.map { $0["kind"] as? String } == ["evening_nudge", "morning_digest"])
            #expect(items.last?["title"] as? String == "Ваш день")
            #expect(items.first?["body"] as? String == "Осталось сегодня: Read")
            #expect(items.first?["status_label"] as? String == "Ожидает")
            let id = try #require(items.first?["id"] as? String)
            #expect(try await http.call(.post, "/api/v1/reminders/\(id)/ack", token: other).status == .notFound)
            let acked = try await http.call(.post, "/api/v1/reminders/\(id)/ack", token: token)
            #expect(acked.string("status") == "delivered")
            #expect(try await http.call(.post, "/api/v1/reminders/\(id)/ack", token: token).string("status") == "delivered")
            let left = try await http.call(.get, "/api/v1/reminders?status=pending", token: token)
            #expect((left.object["items"] as? [[String: Any]])?.count == 1)
            let others = try await http.call(.get, "/api/v1/reminders", token: other)
            #expect((others.object["items"] as? [Any])?.isEmpty == true)
            #expect(try await http.call(.get, "/api/v1/reminders?status=soon", token: token).fieldErrors == ["status"])
        }
    }
}
