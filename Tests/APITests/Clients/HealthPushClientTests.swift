import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// HealthPush (danburtenshaw/HealthPush), its Home Assistant destination, against lifelog: the
/// URL and secret from a device's creation answer pasted into the app, its requests replayed as
/// its source builds them (`Tests/Fixtures/clients/healthpush`, provenance in `SOURCES.txt`).
@Suite struct HealthPushClientTests {
    /// 2026-04-09 21:30 in London, the evening of the fixtures' sync.
    static let now = Date(timeIntervalSince1970: 1_775_766_600)

    static func day(_ http: any TestClientProtocol, _ token: String, _ metric: String) async throws -> [String: Any]? {
        let read = try await http.call(.get, "/api/v1/health/daily?from=2026-04-09&to=2026-04-09&metrics=\(metric)", token: token)
        return (read.object["days"] as? [[String: Any]])?.first
    }

    @Test func theConnectionTestTheSyncAndItsResendAsTheAppSendsThem() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("ana@example.com", timezone: "Europe/London").string("access_token"))
            // What to paste, from the device's creation answer: the URL and the secret (the key).
            // (The test client names the server "localhost".)
            let device = try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"iPhone (HealthPush)","kind":"phone"}"#)
            let secret = try #require(device.string("api_key"))
            let connect = try #require(device.object["connect"] as? [String: Any], "\(device.text)")
            #expect(connect["healthpush_url"] as? String == "http://localhost/api/v1/ingest/healthpush")
            #expect(connect["healthpush_secret_header"] as? String == "X-Webhook-Secret")
            let path = "/api/v1/ingest/healthpush"

            // Test connection: 2xx (or 400) is "connected"; a wrong secret 401; a wrong URL 404.
            let test = try ClientRequest.fixture("healthpush/01_test_connection", credential: secret)
            let tested = try await test.send(http, path: path)
            #expect(test.expectedStatuses.contains(tested.status) && tested.status == 200, "\(tested.text)")
            #expect(try await ClientRequest.fixture("healthpush/02_test_connection_wrong_secret").send(http, path: path).status == 401)
            #expect(try await test.send(http).status == 404, "the URL of another server's webhook is not lifelog's")
            // No secret stored in the app: it sends none, and lifelog refuses it.
            #expect(try await ClientRequest.fixture("healthpush/05_sync_no_secret_configured").send(http, path: path).status == 401)

            let sync = try await ClientRequest.fixture("healthpush/03_sync_metrics", credential: secret).send(http, path: path)
            #expect(sync.status == 200 && sync.object["rejected"] as? Int == 0, "\(sync.text)")
            // Resting energy, exercise and stand minutes and flights are not lifelog metrics.
            #expect(sync.object["skipped"] as? Int == 4 && sync.object["inserted"] as? Int == 10, "\(sync.text)")
            let resend = try await ClientRequest.fixture("healthpush/04_sync_resend_cumulative_only", credential: secret).send(http, path: path)
            #expect(resend.status == 200 && resend.object["updated"] as? Int == 2 && resend.object["inserted"] as? Int == 0, "\(resend.text)")

            // What a person sees: today's running totals replaced by the newer post, never added up;
            // display units made lifelog's (km to m, % as %, hours of sleep as the night).
            let position = try #require(resend.object["position"] as? String)
            _ = try await http.call(.get, "/api/v1/health/daily?from=2026-04-09&to=2026-04-09&min_position=\(position)", token: token)
            let steps = try #require(try await Self.day(http, token, "steps"))
            #expect(steps["value"] as? Double == 8_907 && steps["decided_by"] as? String == "summary", "\(steps)")
            #expect(try await Self.day(http, token, "active_energy")?["value"] as? Double == 530.12)
            #expect(try await Self.day(http, token, "distance")?["value"] as? Double == 6_180)
            #expect(try await Self.day(http, token, "spo2")?["value"] as? Double == 97)
            #expect(try await Self.day(http, token, "body_fat")?["value"] as? Double == 18.5)
            #expect(try await Self.day(http, token, "body_mass")?["value"] as? Double == 75.46)
            #expect(try await Self.day(http, token, "hrv_sdnn")?["value"] as? Double == 48.21)
            let night = try await http.call(.get, "/api/v1/health/sleep/2026-04-09", token: token)
            #expect(night.object["asleep_minutes"] as? Int == 427, "7.13 h asleep: \(night.text)")

            // Bodies up to 512 KiB (the Home Assistant integration's limit) are taken.
            let padding = String(repeating: "x", count: 500 * 1024)
            let large = try await http.call(.post, path, headers: [HTTPField.Name("X-Webhook-Secret")!: secret],
                                            json: #"{"device_name":"\#(padding)","metrics":[]}"#)
            #expect(large.status == .ok)

            // Revoked: 401, which the app reports and retries at its next sync.
            let id = try #require(device.string("id"))
            #expect(try await http.call(.delete, "/api/v1/devices/\(id)", token: token).status == .noContent)
            #expect(try await ClientRequest.fixture("healthpush/03_sync_metrics", credential: secret).send(http, path: path).status == 401)
        }
    }
}
