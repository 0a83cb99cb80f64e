import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Health Auto Export's corrections (issue 27) as a person sees them through the API: the day's
/// heart-rate extremes are the app's Min and Max, and a day total counts for the day the app named.
@Suite struct HealthExporterCorrectionsTests {
    @Test func heartRateExtremesAndADayTotalFromAPhoneInAnotherZone() async throws {
        try await AppHarness.with(now: Date(timeIntervalSince1970: 1_773_144_000), asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("ana@example.com", timezone: "Europe/Belgrade").string("access_token"))
            // The phone is in Kiribati (UTC+14): its 9 March is Belgrade's 8 March until 11:00.
            let answer = try await http.call(.post, "/api/v1/ingest/health-auto-export", token: token, json: """
                {"data":{"metrics":[
                  {"name":"step_count","units":"count","data":[{"date":"2026-03-09 00:00:00 +1400","qty":6400,"source":"iPhone"}]},
                  {"name":"heart_rate","units":"count/min","data":[
                    {"date":"2026-03-09 09:00:00 +0100","Min":51,"Avg":63,"Max":88,"source":"Watch"},
                    {"date":"2026-03-09 10:00:00 +0100","Min":60,"Avg":71,"Max":131,"source":"Watch"}]}]}}
                """)
            let position = try #require(answer.string("position"), "\(answer.text)")
            let daily = try await http.call(.get, "/api/v1/health/daily?from=2026-03-08&to=2026-03-09&min_position=\(position)", token: token)
            let days = (daily.object["days"] as? [[String: Any]]) ?? []
            let steps = days.filter { $0["metric"] as? String == "steps" }
            #expect(steps.map { $0["date"] as? String } == ["2026-03-09"] && steps.first?["value"] as? Double == 6_400, "\(daily.text)")
            let heart = try #require(days.first { $0["metric"] as? String == "heart_rate" })
            #expect(heart["value"] as? Double == 67 && heart["min"] as? Double == 51 && heart["max"] as? Double == 131, "\(heart)")
        }
    }
}
