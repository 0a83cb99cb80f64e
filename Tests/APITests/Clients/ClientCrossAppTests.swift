import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The apps together: one person's day is counted once whichever apps send it, and one person's
/// app key never reads or writes another person's data.
@Suite struct ClientCrossAppTests {
    static let apiKey = HTTPField.Name("X-API-Key")!

    static func steps(_ http: any TestClientProtocol, _ token: String, position: String) async throws -> [String: Any]? {
        let read = try await http.call(.get, "/api/v1/health/daily?from=2026-09-10&to=2026-09-10&metrics=steps&min_position=\(position)", token: token)
        return (read.object["days"] as? [[String: Any]])?.first
    }

    /// The watch through health-sync, the phone through HealthPush, GymDashSync's year of days:
    /// each is a total of HealthKit's for the day; the day shows one, never their sum. The watch's
    /// own samples, when they arrive (a native batch, an Apple export), outrank every total.
    @Test func watchAndPhoneThroughThreeAppsDoNotDoubleADay() async throws {
        try await AppHarness.with(now: HealthSyncClientTests.now, asyncProjectors: true) { _, http in
            let (token, key) = try await HealthSyncClientTests.user(http)
            let hourly = try await ClientRequest.fixture("health-sync/02_ingest_metrics_incremental", credential: key).send(http)
            #expect(hourly.healthSyncAccepts)
            let pushed = try await http.call(.post, "/api/v1/ingest/healthpush", headers: [HTTPField.Name("X-Webhook-Secret")!: key], json: """
                {"device_name":"HealthPush","timestamp":"2026-09-10T20:00:00.000Z","metrics":[{"id":"2B7C0A4E-1D3F-5A6B-8C9D-0E1F2A3B4C5D",
                 "type":"steps","value":9100,"unit":"steps","start_date":"2026-09-09T22:00:00.000Z","end_date":"2026-09-10T22:00:00.000Z"}]}
                """)
            #expect(pushed.status == .ok, "\(pushed.text)")
            let code = try #require(try await http.call(.post, "/api/v1/devices/pairing-codes", token: token).string("code"))
            let clientId = try #require(try await http.call(.post, "/pair", json: #"{"code":"\#(code)"}"#).object["client_id"] as? String)
            let gym = try await http.call(.post, "/api/ingest/steps", json: #"{"client_id":"\#(clientId)","steps":[{"date":"2026-09-10T09:15:00Z","total_steps":8800,"healthkit_uuid":"3C8D1B5F-2E4A-4B6C-9D0E-1F2A3B4C5D6E"}]}"#)
            #expect(gym.status == .ok)

            let position = try #require(try await http.call(.post, "/api/v1/ingest/health", token: token, json: #"{"samples":[]}"#).string("position"))
            let totals = try #require(try await Self.steps(http, token, position: position))
            // health-sync's hours add up to 8,967; HealthPush says 9,100; GymDashSync 8,800. One of them, by
            // source priority (phone before app, then by name): HealthPush's.
            #expect(totals["value"] as? Double == 9_100 && totals["decided_by"] as? String == "summary", "\(totals)")

            let watch = try await http.call(.post, "/api/v1/ingest/health", token: token, json: """
                {"samples":[{"metric":"steps","value":5000,"start":"2026-09-10T07:00:00Z","end":"2026-09-10T08:00:00Z","source":{"name":"Apple Watch","kind":"watch"}},
                            {"metric":"steps","value":4050,"start":"2026-09-10T15:00:00Z","end":"2026-09-10T16:00:00Z","source":{"name":"Apple Watch","kind":"watch"}}]}
                """)
            let watchPosition = try #require(watch.string("position"))
            let samples = try #require(try await Self.steps(http, token, position: watchPosition))
            #expect(samples["value"] as? Double == 9_050 && samples["decided_by"] as? String == "samples", "\(samples)")
        }
    }

    /// Each app's credential is one user's device key: what it sends is that user's, and what it
    /// reads is that user's only.
    @Test func oneUsersAppKeyNeitherReadsNorWritesAnothersData() async throws {
        try await AppHarness.with(now: HealthSyncClientTests.now, asyncProjectors: true) { harness, http in
            let (tokenA, keyA) = try await HealthSyncClientTests.user(http, email: "ana@example.com")
            let (tokenB, keyB) = try await HealthSyncClientTests.user(http, email: "bo@example.com")
            #expect(try await ClientRequest.fixture("health-sync/02_ingest_metrics_incremental", credential: keyA).send(http).healthSyncAccepts)
            #expect(try await ClientRequest.fixture("health-sync/09_ingest_workouts", credential: keyA).send(http).healthSyncAccepts)
            try await HealthSyncClientTests.settle(harness, http, token: tokenA)

            // B's app sees B's (empty) account: no metrics, no night, no figures in a section.
            #expect(try await ClientRequest.fixture("health-sync/17_read_metrics_list", credential: keyB).send(http).array.isEmpty)
            let sleep = try await http.call(.get, "/api/section/sleep", headers: [Self.apiKey: keyB])
            #expect(sleep.object["summary"] as? String == "No data yet" && (sleep.object["details"] as? [Any])?.isEmpty == true, "\(sleep.text)")
            let mine = try await http.call(.get, "/api/section/sleep", headers: [Self.apiKey: keyA])
            #expect((mine.object["details"] as? [Any])?.isEmpty == false, "\(mine.text)")
            #expect(try await http.call(.get, "/api/health/latest", headers: [Self.apiKey: keyB]).object["items"] as? [Any] != nil)
            #expect((try await http.call(.get, "/api/health/latest", headers: [Self.apiKey: keyB]).object["items"] as? [Any])?.isEmpty == true)

            // B's GymDashSync key asking for A's workout: none; A's: found.
            let question = #"{"client_id":"%@","uuids":["01D44B76-C7A9-5750-9FA1-FA996BD24E7F"]}"#
            let forB = try await http.call(.post, "/api/ingest/workouts/query", json: question.replacingOccurrences(of: "%@", with: keyB))
            let forA = try await http.call(.post, "/api/ingest/workouts/query", json: question.replacingOccurrences(of: "%@", with: keyA))
            #expect(forB.text == "[]" && forA.text.contains("01D44B76"), "\(forB.text) / \(forA.text)")

            // B's HealthPush and Pulse uploads land in B's account, and A's day is as it was.
            _ = try await http.call(.post, "/api/v1/ingest/healthpush", headers: [HTTPField.Name("X-Webhook-Secret")!: keyB], json: """
                {"metrics":[{"id":"9A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9","type":"steps","value":100,"unit":"steps","start_date":"2026-09-09T22:00:00.000Z","end_date":"2026-09-10T22:00:00.000Z"}]}
                """)
            let pulse = try await http.call(.post, "/api/health?key=\(keyB)", json: #"{"data":{"metrics":[{"name":"step_count","data":[{"date":"2026-09-10 00:00:00 +0200","qty":200}]}]}}"#)
            let position = try #require(pulse.string("position"))
            let a = try await http.call(.get, "/api/v1/health/daily?from=2026-09-10&to=2026-09-10&metrics=steps&min_position=\(position)", token: tokenA)
            let b = try await http.call(.get, "/api/v1/health/daily?from=2026-09-10&to=2026-09-10&metrics=steps", token: tokenB)
            #expect((a.object["days"] as? [[String: Any]])?.first?["value"] as? Double == 8_967, "\(a.text)")
            // B's two phone totals: one of them (by name, HealthPush's), not their sum.
            #expect((b.object["days"] as? [[String: Any]])?.first?["value"] as? Double == 100, "\(b.text)")
        }
    }

    /// What the apps never send (a field of the wrong type, a number out of its documented range)
    /// is refused with a problem, and nothing is stored, rather than silently read as absent.
    @Test func fieldsOfTheWrongTypeAreRefusedAndStoreNothing() async throws {
        try await AppHarness.with(now: HealthSyncClientTests.now, asyncProjectors: true) { harness, http in
            let (token, key) = try await HealthSyncClientTests.user(http)
            let secret: HTTPFields = [HTTPField.Name("X-Webhook-Secret")!: key]
            let step = #"{"id":"5D1E2F3A-4B5C-4D6E-8F70-8192A3B4C5D6","type":"steps","value":10,"unit":"steps","start_date":"2026-09-09T22:00:00.000Z","end_date":"2026-09-10T22:00:00.000Z"}"#
            // HealthPush: a timestamp that is not an instant.
            let push = try await http.call(.post, "/api/v1/ingest/healthpush", headers: secret, json: #"{"device_name":"x","timestamp":"","metrics":[\#(step)]}"#)
            #expect(push.status == .badRequest && push.text.contains("timestamp"), "\(push.text)")
            // GymDashSync: ids that are not strings.
            let query = try await http.call(.post, "/api/ingest/workouts/query", json: #"{"client_id":"\#(key)","uuids":[{}]}"#)
            #expect(query.status == .unprocessableContent && query.text.contains("uuids"), "\(query.text)")
            let night = try await http.call(.post, "/api/ingest/sleep", json: #"{"client_id":"\#(key)","sleep_records":[{"date":"2026-09-10","total_sleep_minutes":420,"healthkit_uuid":{},"sleep_start":"2026-09-09T22:00:00Z","sleep_end":"2026-09-10T05:00:00Z"}]}"#)
            #expect(night.object["errors_count"] as? Int == 1 && night.text.contains("healthkit_uuid"), "\(night.text)")
            // Pulse: the night's source that is not a string, beside the envelope too.
            let pulse = try await http.call(.post, "/api/health?key=\(key)", json: #"{"data":{"metrics":[]},"source":{}}"#)
            #expect(pulse.status == .badRequest && pulse.text.contains("source"), "\(pulse.text)")
            let units = try await http.call(.post, "/api/health?key=\(key)", json: #"{"data":{"metrics":[{"name":"step_count","units":{},"data":[{"date":"2026-09-10 08:00:00 +0200","qty":10}]}]}}"#)
            #expect(units.object["skipped"] as? Int == 1 && units.object["inserted"] as? Int == 0, "\(units.text)")
            let hours = try await http.call(.post, "/api/health?key=\(key)", json: #"{"inBedStart":"2026-09-09T22:00:00Z","deep":"lots"}"#)
            #expect(hours.status == .badRequest && hours.text.contains("deep"), "\(hours.text)")
            // health-sync: an energy history longer than the app asks for.
            let energy = try await http.call(.get, "/api/energy-history?hours=721", headers: [Self.apiKey: key])
            #expect(energy.status == .unprocessableContent && energy.text.contains("hours"), "\(energy.text)")

            // Nothing of what was refused is in the log (the events of one item each would be health ones).
            let stored = try await harness.count("SELECT count(*) FROM events WHERE event_type LIKE 'health.%'")
            #expect(stored == 0, "\(stored) health events stored from refused uploads")
            _ = token
        }
    }
}
