import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// GymDashSync (adamswbrown/GymDashSync) against lifelog, unchanged but for its base URL: it
/// pairs with a lifelog pairing code, and its requests are replayed as its source builds them
/// (`Tests/Fixtures/clients/gymdashsync`, provenance in `SOURCES.txt`).
@Suite struct GymDashSyncClientTests {
    /// 2026-01-15 10:00 UTC, the morning after the fixtures' last day.
    static let now = Date(timeIntervalSince1970: 1_768_471_200)

    /// Pairs as the app does: the code lifelog printed, typed into the pairing screen.
    static func pair(_ http: any TestClientProtocol, token: String) async throws -> String {
        let code = try #require(try await http.call(.post, "/api/v1/devices/pairing-codes", token: token).string("code"))
        var request = try ClientRequest.fixture("gymdashsync/01_pair")
        request.body = #"{"code":"\#(code.lowercased())"}"#  // the screen capitalises; lifelog takes either
        let paired = try await request.send(http)
        #expect(request.expectedStatuses.contains(paired.status), "\(paired.text)")
        return try #require(paired.object["client_id"] as? String, "the app needs client_id: \(paired.text)")
    }

    static func day(_ http: any TestClientProtocol, _ token: String, _ metric: String, _ date: String) async throws -> [String: Any]? {
        let read = try await http.call(.get, "/api/v1/health/daily?from=\(date)&to=\(date)&metrics=\(metric)", token: token)
        return (read.object["days"] as? [[String: Any]])?.first
    }

    /// The answer the app reads: any 2xx, and its counts as integers when present.
    static func accepted(_ answer: ClientAnswer) -> Bool {
        (200..<300).contains(answer.status)
            && ["count_inserted", "duplicates_skipped", "warnings_count", "errors_count"].allSatisfy { answer.integer($0) != nil }
            && answer.object["errors"] is [String]
    }

    /// The app names the device as the phone is named; what a list cannot show is left out, and
    /// the pairing goes through (the fuzz found a name with C1 control characters refused).
    @Test func aDeviceNameWithControlCharactersPairsUnderWhatCanBeShown() async throws {
        try await AppHarness.with { _, http in
            let token = try #require(try await http.register("gymname@example.com").string("access_token"))
            // As JSON escapes in the body: BEL and C1 controls around a name, then nothing else.
            for (sent, shown) in [(#"\u0007Ana\u009f's phone\u009c"#, "Ana's phone"), (#"\u0014\u0085 "#, "GymDashSync")] {
                let code = try #require(try await http.call(.post, "/api/v1/devices/pairing-codes", token: token).string("code"))
                let paired = try await http.call(.post, "/pair", json: #"{"code":"\#(code)","device_name":"\#(sent)"}"#)
                #expect(paired.status == .ok, "\(paired.text)")
                let devices = try await http.call(.get, "/api/v1/devices", token: token).object["items"] as? [[String: Any]] ?? []
                #expect(devices.contains { $0["name"] as? String == shown }, "\(devices)")
            }
        }
    }

    @Test func pairingWithALifelogCodeThenEveryUploadAsTheAppSendsIt() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("ana@example.com", timezone: "Europe/London").string("access_token"))

            // A code nobody issued, or one used already, is the 404 the app calls "Invalid pairing code".
            #expect(try await ClientRequest.fixture("gymdashsync/01_pair").send(http).status == 404)
            let clientId = try await Self.pair(http, token: token)
            #expect(clientId.hasPrefix("lld_"))

            // Workouts: the app first asks which exist (it sends no credential there: none, so it posts them all).
            let asked = try await ClientRequest.fixture("gymdashsync/02_workouts_query").send(http)
            #expect(asked.status == 200 && asked.array.isEmpty, "\(asked.text)")
            let workouts = try await ClientRequest.fixture("gymdashsync/03_ingest_workouts", credential: clientId).send(http)
            #expect(Self.accepted(workouts) && workouts.integer("count_inserted") == 2, "\(workouts.text)")
            let resent = try await ClientRequest.fixture("gymdashsync/04_ingest_workouts_resend", credential: clientId).send(http)
            #expect(Self.accepted(resent) && resent.integer("count_inserted") == 0 && resent.integer("duplicates_skipped") == 2, "\(resent.text)")
            // With its key, the same question names what lifelog holds, as the app wrote the ids.
            var question = try ClientRequest.fixture("gymdashsync/02_workouts_query")
            question.body = #"{"client_id":"\#(clientId)","uuids":["7B8CCFC7-EF94-51A2-8856-3F4A73ED17F4","00000000-0000-4000-8000-000000000000"]}"#
            #expect(try await question.send(http).array.map { $0["uuid"] as? String } == ["7B8CCFC7-EF94-51A2-8856-3F4A73ED17F4"])
            let update = try await ClientRequest.fixture("gymdashsync/05_update_workouts_put", credential: clientId).send(http)
            #expect(Self.accepted(update) && update.integer("duplicates_skipped") == 1, "\(update.text)")
            let stored = try await http.call(.get, "/api/v1/health/workouts?from=2026-01-13&to=2026-01-14", token: token)
            let items = (stored.object["items"] as? [[String: Any]]) ?? []
            #expect(items.map { $0["type"] as? String } == ["run", "strength"] && items.map { $0["source"] as? String } == ["Apple Watch", "iPhone"],
                    "\(stored.text)")
            #expect(items.first?["uuid"] as? String == "7b8ccfc7-ef94-51a2-8856-3f4a73ed17f4" && items.first?["distance_m"] as? Double == 5_012.4)

            // Profile: weight in kg; height is no lifelog metric (a warning); body fat, a fraction labelled percent.
            let weight = try await ClientRequest.fixture("gymdashsync/07_ingest_profile_weight", credential: clientId).send(http)
            #expect(Self.accepted(weight) && weight.integer("count_inserted") == 1)
            let height = try await ClientRequest.fixture("gymdashsync/08_ingest_profile_height", credential: clientId).send(http)
            #expect(Self.accepted(height) && height.integer("warnings_count") == 1 && height.integer("count_inserted") == 0)
            let fat = try await ClientRequest.fixture("gymdashsync/09_ingest_profile_body_fat", credential: clientId).send(http)
            #expect(Self.accepted(fat) && fat.integer("count_inserted") == 1, "\(fat.text)")
            var profileQuestion = try ClientRequest.fixture("gymdashsync/06_profile_query")
            profileQuestion.body = #"{"client_id":"\#(clientId)","uuids":["31ECBD71-DD6B-554C-82BE-1769774892E4"]}"#
            #expect(try await profileQuestion.send(http).array.count == 1)
            let profileUpdate = try await ClientRequest.fixture("gymdashsync/10_update_profile_put", credential: clientId).send(http)
            #expect(Self.accepted(profileUpdate) && profileUpdate.integer("duplicates_skipped") == 1, "\(profileUpdate.text)")

            // A year of steps, then the next sync's year (new random ids, a later time of day): stored once.
            let steps = try await ClientRequest.fixture("gymdashsync/11_ingest_steps", credential: clientId).send(http)
            #expect((200..<300).contains(steps.status) && steps.integer("count_inserted") == 332, "\(steps.text)")
            let again = try await ClientRequest.fixture("gymdashsync/12_ingest_steps_resend", credential: clientId).send(http)
            #expect(again.integer("count_inserted") == 0 && again.integer("duplicates_skipped") == 332, "\(again.text)")
            let sleep = try await ClientRequest.fixture("gymdashsync/13_ingest_sleep", credential: clientId).send(http)
            #expect((200..<300).contains(sleep.status) && sleep.integer("errors_count") == 0, "\(sleep.text)")
            let sleepAgain = try await ClientRequest.fixture("gymdashsync/14_ingest_sleep_resend", credential: clientId).send(http)
            #expect(sleepAgain.integer("count_inserted") == 0, "\(sleepAgain.text)")

            // What a person sees: the day's steps once, weight and body fat in their units, the nights.
            let position = try #require(try await http.call(.post, "/api/v1/ingest/health", token: token, json: #"{"samples":[]}"#).string("position"))
            _ = try await http.call(.get, "/api/v1/health/daily?from=2026-01-14&to=2026-01-14&min_position=\(position)", token: token)
            #expect(try await Self.day(http, token, "steps", "2026-01-14")?["value"] as? Double == 9_596)
            #expect(try await Self.day(http, token, "body_mass", "2026-01-14")?["value"] as? Double == 81.35)
            #expect(try await Self.day(http, token, "body_fat", "2026-01-14")?["value"] as? Double == 21.4)
            let nights = try await http.call(.get, "/api/v1/health/sleep?from=2026-01-03&to=2026-01-15", token: token)
            let byDate = Dictionary(((nights.object["items"] as? [[String: Any]]) ?? []).map { ($0["date"] as? String ?? "", $0) }, uniquingKeysWith: { $1 })
            // A row's minutes, laid from its first start, never more than the row spans.
            #expect(byDate["2026-01-08"]?["asleep_minutes"] as? Int == 450 && byDate["2026-01-15"]?["asleep_minutes"] as? Int == 340, "\(nights.text)")
            #expect(byDate.values.allSatisfy { ($0["asleep_minutes"] as? Int ?? 0) <= 24 * 60 })

            // Revoked from the devices list: the app's uploads are refused from then on.
            let devices = try await http.call(.get, "/api/v1/devices", token: token)
            let device = try #require((devices.object["items"] as? [[String: Any]])?.first)
            #expect(device["name"] as? String == "GymDashSync" && device["kind"] as? String == "phone")
            #expect(try await http.call(.delete, "/api/v1/devices/\(device["id"] as? String ?? "")", token: token).status == .noContent)
            #expect(try await ClientRequest.fixture("gymdashsync/07_ingest_profile_weight", credential: clientId).send(http).status == 401)
        }
    }

    /// The app says "Invalid pairing code" for a 404 and "Server error" for anything else: its
    /// pairing is refused only for its code, whatever name the phone has (the fuzz sent one with
    /// control characters and a wrong code, and got a 422 about the name).
    @Test func aPairingIsRefusedOnlyForItsCodeAndTheNameIsMadeALifelogName() async throws {
        try await AppHarness.with(now: Self.now) { _, http in
            let token = try #require(try await http.register("pair@example.com").string("access_token"))
            let odd = #"{"code":"WRONG123","device_name":"\u0085Ana\u0007's\u009c phone  "}"#
            #expect(try await http.call(.post, "/pair", json: odd).status == .notFound)
            let long = String(repeating: "x", count: 150)
            for (sent, shown) in [(#""\u0085Ana\u0007's\u009c phone  ""#, "Ana's phone"), (#""   ""#, "GymDashSync"),
                                  ("\"\(long)\"", String(long.prefix(100)))] {
                let code = try #require(try await http.call(.post, "/api/v1/devices/pairing-codes", token: token).string("code"))
                let paired = try await http.call(.post, "/pair", json: #"{"code":"\#(code)","device_name":\#(sent)}"#)
                #expect(paired.status == .ok, "\(sent): \(paired.text)")
                let devices = try await http.call(.get, "/api/v1/devices", token: token).object["items"] as? [[String: Any]] ?? []
                #expect(devices.contains { $0["name"] as? String == shown }, "\(sent): \(devices)")
            }
        }
    }

    /// The app's "date" is a UTC instant at the time of day of the sync: the day it means is that
    /// instant's local date. In Auckland (UTC+13 in January) 14:37 UTC is 03:37 the next day.
    @Test func aDaysStepsCountForTheLocalDayOfTheInstantAndReplaceTheLastSync() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("kiri@example.com", timezone: "Pacific/Auckland").string("access_token"))
            let clientId = try await Self.pair(http, token: token)
            _ = try await ClientRequest.fixture("gymdashsync/11_ingest_steps", credential: clientId).send(http)
            _ = try await ClientRequest.fixture("gymdashsync/12_ingest_steps_resend", credential: clientId).send(http)
            let position = try #require(try await http.call(.post, "/api/v1/ingest/health", token: token, json: #"{"samples":[]}"#).string("position"))
            let read = try await http.call(.get, "/api/v1/health/daily?from=2026-01-14&to=2026-01-15&metrics=steps&min_position=\(position)", token: token)
            let days = (read.object["days"] as? [[String: Any]]) ?? []
            // 2026-01-14T14:37:12Z's 9,596 steps are Auckland's 15 January; the 14th holds the row before.
            #expect(days.map { $0["date"] as? String } == ["2026-01-14", "2026-01-15"], "\(read.text)")
            #expect(days.last?["value"] as? Double == 9_596 && days.first?["value"] as? Double == 9_207 && days.last?["decided_by"] as? String == "summary")
        }
    }
}
