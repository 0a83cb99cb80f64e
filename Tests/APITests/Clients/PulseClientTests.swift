import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Pulse Health's health webhook. Its source is private, so there is no fixture read from it: the
/// request is built from what its author published (README "Connecting your apps"): Health Auto
/// Export's envelope with Pulse's metric names, active energy in kJ, the night's summary in hours,
/// `?key=`, and the three screens.
@Suite struct PulseClientTests {
    /// 2026-03-10 10:00 in Belgrade.
    static let now = Date(timeIntervalSince1970: 1_773_133_200)

    static let upload = """
        {"data":{"metrics":[
          {"name":"step_count","units":"count","data":[{"date":"2026-03-10 08:00:00 +0100","qty":1200,"source":"iPhone"},
                                                       {"date":"2026-03-10 09:00:00 +0100","qty":800,"source":"iPhone"}]},
          {"name":"heart_rate","units":"count/min","data":[{"date":"2026-03-10 09:10:00 +0100","Avg":64,"source":"Apple Watch"}]},
          {"name":"resting_heart_rate","units":"count/min","data":[{"date":"2026-03-10 07:00:00 +0100","qty":55,"source":"Apple Watch"}]},
          {"name":"heart_rate_variability","units":"ms","data":[{"date":"2026-03-10 04:00:00 +0100","qty":48,"source":"Apple Watch"}]},
          {"name":"active_energy","data":[{"date":"2026-03-10 00:00:00 +0100","qty":418.4}]},
          {"name":"blood_oxygen_saturation","units":"%","data":[{"date":"2026-03-10 05:00:00 +0100","qty":97,"source":"Apple Watch"}]},
          {"name":"walking_running_distance","units":"km","data":[{"date":"2026-03-10 08:00:00 +0100","qty":1.4,"source":"iPhone"}]},
          {"name":"respiratory_rate","units":"count/min","data":[{"date":"2026-03-10 04:30:00 +0100","qty":14,"source":"Apple Watch"}]},
          {"name":"sleep_analysis","units":"hr","data":[{"date":"2026-03-10","totalSleep":7.5,"deep":1.2,"rem":1.5,"core":4.8,"awake":0.3,
            "inBedStart":"2026-03-09 23:00:00 +0100","sleepEnd":"2026-03-10 07:00:00 +0100","source":"Apple Watch"}]}]}}
        """

    @Test func itsUploadAndItsThreeScreensWithTheKeyInTheURL() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("ana@example.com").string("access_token"))
            let key = try #require(try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"Pulse","kind":"phone"}"#).string("api_key"))
            let query = "key=\(key.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? key)"

            let stored = try await http.call(.post, "/api/health?\(query)", json: Self.upload)
            #expect(stored.status == .ok && stored.object["rejected"] as? Int == 0 && stored.object["inserted"] as? Int ?? 0 >= 10, "\(stored.text)")
            // Sent twice (every ~30 minutes it repeats the day): nothing new.
            let again = try await http.call(.post, "/api/health?\(query)", json: Self.upload)
            #expect(again.object["inserted"] as? Int == 0 && again.object["updated"] as? Int == 0, "\(again.text)")
            // Dates written as RFC 3339 (what Pulse writes is not published) are read too.
            let iso = try await http.call(.post, "/api/health?\(query)", json: #"{"data":{"metrics":[{"name":"heart_rate","units":"count/min","data":[{"date":"2026-03-10T08:20:00Z","Avg":70,"source":"Apple Watch"}]}]}}"#)
            #expect(iso.object["inserted"] as? Int == 1 && iso.object["rejected"] as? Int == 0, "\(iso.text)")
            #expect(try await http.call(.post, "/api/health", json: Self.upload).status == .unauthorized)
            #expect(try await http.call(.post, "/api/health?key=lld_wrong", json: Self.upload).status == .unauthorized)

            let position = try #require(iso.string("position"))
            _ = try await http.call(.get, "/api/v1/health/daily?from=2026-03-10&to=2026-03-10&min_position=\(position)", token: token)
            let latest = try await http.call(.get, "/api/health/latest?\(query)")
            #expect(latest.status == .ok, "\(latest.text)")
            // The names Pulse reads, at the top level: the local day's totals and the newest readings.
            #expect(latest.object["steps"] as? Double == 2_000 && latest.object["distance"] as? Double == 1_400)
            #expect(latest.object["activeEnergy"] as? Double == 100, "418.4 kJ are 100 kcal: \(latest.text)")
            #expect(latest.object["spo2"] as? Double == 97 && latest.object["respiratoryRate"] as? Double == 14)
            #expect((latest.object["items"] as? [Any])?.count == 8)

            // Readiness counts the same local day's steps as latest (the known problem it must not have).
            let readiness = try await http.call(.get, "/api/health/readiness?\(query)")
            #expect(readiness.object["steps"] as? Double == latest.object["steps"] as? Double && readiness.object["date"] as? String == "2026-03-10",
                    "\(readiness.text)")
            #expect(readiness.object["formula_version"] as? String == "recovery-v1" && readiness.object["status"] is String)
            // A session token reads it as well.
            #expect(try await http.call(.get, "/api/health/readiness", token: token).status == .ok)

            let heatmap = try await http.call(.get, "/api/health/heatmap?\(query)&metric=step_count&days=7")
            let cells = (heatmap.object["days"] as? [[String: Any]]) ?? []
            #expect(cells.count == 7 && cells.last?["value"] as? Double == 2_000 && cells.last?["level"] as? Int ?? 0 > 0, "\(heatmap.text)")

            // The night's summary in hours, ending at sleepEnd.
            let night = try await http.call(.get, "/api/v1/health/sleep/2026-03-10", token: token)
            #expect(night.object["asleep_minutes"] as? Int == 450 && night.object["source"] as? String == "Apple Watch", "\(night.text)")
        }
    }
}
