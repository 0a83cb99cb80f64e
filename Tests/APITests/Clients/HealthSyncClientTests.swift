import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing
import TestSupport

/// health-sync (Dzarlax-AI/health-sync) against lifelog, unchanged: its requests replayed as its
/// source builds them (`Tests/Fixtures/clients/health-sync`, provenance in `SOURCES.txt`), its
/// own acceptance rules checked on every answer, and the figures a person then sees.
@Suite struct HealthSyncClientTests {
    /// The fixtures' morning: 2026-09-11 10:30 in Belgrade.
    static let now = Date(timeIntervalSince1970: 1_789_115_400)

    /// A user in Belgrade and a device key for the app.
    static func user(_ http: any TestClientProtocol, email: String = "ana@example.com") async throws -> (token: String, key: String) {
        let token = try #require(try await http.register(email).string("access_token"))
        let device = try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"iPhone (health-sync)","kind":"phone"}"#)
        return (token, try #require(device.string("api_key")))
    }

    /// Waits until the day models have read the whole log (the app's reads have no min_position).
    static func settle(_ harness: AppHarness, _ http: any TestClientProtocol, token: String) async throws {
        var head = ""
        for try await position in try await harness.client.rows(
            "SELECT transaction_id::text || '/' || global_position FROM events ORDER BY global_position DESC LIMIT 1", logger: TestDatabase.logger
        ).decode(String.self) { head = position }
        for _ in 0..<20 {
            let read = try await http.call(.get, "/api/v1/health/daily?from=2026-09-01&to=2026-09-11&min_position=\(head)", token: token)
            if read.status == .ok { return }
        }
        Issue.record("the day models did not catch up")
    }

    /// The hourly totals the app sent, stored as its own server stores them (the last value for
    /// a metric, date string and source wins), added up per local day: what the day must show.
    static func expectedTotals(_ fixtures: [String], metric: String) throws -> [String: Double] {
        var byHour: [String: Double] = [:]
        for name in fixtures {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: ClientRequest.folder.appendingPathComponent(name + ".json")))
            let metrics = (((object as? [String: Any])?["body"] as? [String: Any])?["data"] as? [String: Any])?["metrics"] as? [[String: Any]] ?? []
            for point in metrics.first(where: { $0["name"] as? String == metric })?["data"] as? [[String: Any]] ?? [] {
                byHour[point["date"] as? String ?? ""] = (point["qty"] as? NSNumber)?.doubleValue
            }
        }
        return byHour.reduce(into: [:]) { days, hour in days[String(hour.key.prefix(10)), default: 0] += hour.value }
    }

    static func points(_ answer: ClientAnswer) -> [String: [String: Any]] {
        Dictionary((answer.object["points"] as? [[String: Any]] ?? []).map { ($0["date"] as? String ?? "", $0) }, uniquingKeysWith: { $1 })
    }

    @Test func everyUploadIsAcknowledgedAsTheAppRequiresAndStoredOnce() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let (token, key) = try await Self.user(http)

            // The connection test: 2xx, JSON, {"status":"ok"}.
            let test = try await ClientRequest.fixture("health-sync/01_validate_connection", credential: key).send(http)
            #expect(test.status == 200 && test.contentType.contains("json") && test.object["status"] as? String == "ok", "\(test.text)")

            // The incremental upload, then the same window again (the app's retry after a lost answer).
            let first = try await ClientRequest.fixture("health-sync/02_ingest_metrics_incremental", credential: key).send(http)
            #expect(first.healthSyncAccepts, "\(first.status) \(first.text)")
            #expect((first.object["inserted"] as? Int ?? 0) > 150 && first.object["rejected"] as? Int == 0, "\(first.text)")
            let again = try await ClientRequest.fixture("health-sync/03_ingest_metrics_resend_identical", credential: key).send(http)
            #expect(again.healthSyncAccepts, "\(again.text)")
            #expect(again.object["inserted"] as? Int == 0 && again.object["updated"] as? Int == 0, "a re-send stored something: \(again.text)")

            // A full re-sync: a sleep-only chunk and a chunk per day, one X-Sync-Session; the 90-day
            // onboarding upload; an upload holding only the "no sleep" periods.
            for name in ["04_fullresync_chunk1_sleep", "05_fullresync_chunk2_day", "06_fullresync_chunk3_day",
                         "07_ingest_initial_sleep_history", "08_ingest_empty_sleep_periods_only"] {
                let answer = try await ClientRequest.fixture("health-sync/\(name)", credential: key).send(http)
                #expect(answer.healthSyncAccepts, "\(name): \(answer.status) \(answer.text)")
                #expect(answer.object["rejected"] as? Int == 0, "\(name): \(answer.text)")
            }

            // Workouts: ingested equals the number sent and failed is 0, the first time and again.
            for name in ["09_ingest_workouts", "10_ingest_workouts_resend"] {
                let answer = try await ClientRequest.fixture("health-sync/\(name)", credential: key).send(http)
                #expect(answer.healthSyncAccepts, "\(name): \(answer.text)")
                #expect(answer.integer("ingested") == 1 && answer.integer("failed") == 0, "\(name): \(answer.text)")
            }
            let workouts = try await http.call(.get, "/api/v1/health/workouts?from=2026-09-10&to=2026-09-10", token: token)
            let workout = try #require((workouts.object["items"] as? [[String: Any]])?.first, "\(workouts.text)")
            #expect((workouts.object["items"] as? [Any])?.count == 1)
            #expect(workout["type"] as? String == "Outdoor Run" && abs((workout["distance_m"] as? Double ?? 0) - 7_420) < 0.01, "\(workout)")
            #expect(workout["uuid"] as? String == "01d44b76-c7a9-5750-9fa1-fa996bd24e7f" && workout["avg_heart_rate"] as? Double == 134.714)

            try await Self.settle(harness, http, token: token)

            // Steps: the app's hourly totals, the last value of each hour, added up per local day.
            let expected = try Self.expectedTotals(["health-sync/02_ingest_metrics_incremental", "health-sync/05_fullresync_chunk2_day",
                                                    "health-sync/06_fullresync_chunk3_day"], metric: "step_count")
            let stepDays = try await http.call(.get, "/api/metrics/data?metric=step_count&from=2026-09-10&to=2026-09-11&bucket=day",
                                               headers: [HTTPField.Name("X-API-Key")!: key])
            let byDate = Dictionary(((stepDays.object["points"] as? [[String: Any]]) ?? []).map { ($0["date"] as? String ?? "", $0["qty"] as? Double) },
                                    uniquingKeysWith: { $1 })
            #expect(byDate["2026-09-10"] == expected["2026-09-10"] && byDate["2026-09-11"] == expected["2026-09-11"], "\(stepDays.text) vs \(expected)")
            #expect(stepDays.object["agg"] as? String == "SUM")

            // Heart rate: the mean of the day's readings, with their lowest and highest.
            let heart = try await http.call(.get, "/api/v1/health/daily?from=2026-09-10&to=2026-09-10&metrics=heart_rate", token: token)
            let day = try #require((heart.object["days"] as? [[String: Any]])?.first, "\(heart.text)")
            #expect(day["min"] as? Double == 58 && day["max"] as? Double == 86, "\(day)")

            // Sleep: the nights lifelog builds from the segments equal the app's own totals by wake day.
            let sleep = Self.points(try await ClientRequest.fixture("health-sync/18_read_metric_data", credential: key).send(http))
            for (date, hours) in [("2026-09-05", 6.25), ("2026-09-08", 6.983), ("2026-09-11", 6.3)] {
                #expect(sleep[date]?["qty"] as? Double == hours, "\(date): \(sleep[date] ?? [:])")
            }
            let bySource = try await ClientRequest.fixture("health-sync/19_read_metric_data_by_source", credential: key).send(http)
            let sources = (bySource.object["points_by_source"] as? [[String: Any]]) ?? []
            #expect(sources.map { $0["source"] as? String } == ["Sample Apple Watch"] && (sources.first?["points"] as? [Any])?.count == 3,
                    "\(bySource.text)")
        }
    }

    @Test func everyScreenDecodesAsTheAppDecodesIt() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let (token, key) = try await Self.user(http)
            for name in ["02_ingest_metrics_incremental", "07_ingest_initial_sleep_history", "09_ingest_workouts"] {
                _ = try await ClientRequest.fixture("health-sync/\(name)", credential: key).send(http)
            }
            try await Self.settle(harness, http, token: token)

            // Settings: the language the app then sends as ?lang=.
            let settings = try await ClientRequest.fixture("health-sync/11_read_settings", credential: key).send(http)
            #expect(settings.status == 200 && settings.object["report_lang"] as? String == "en" && settings.object["timezone"] as? String == "Europe/Belgrade")

            for lang in ["en", "ru", "sr"] {
                // The briefing: `date` required; integers where the app decodes Int; each section's
                // required strings; arrays, never null.
                let briefing = try await ClientRequest.fixture("health-sync/12_read_health_briefing", credential: key)
                    .send(http, path: "/api/health-briefing?lang=\(lang)")
                #expect(briefing.status == 200 && briefing.contentType.contains("json"), "\(briefing.text)")
                #expect(briefing.object["date"] as? String == "2026-09-11")
                let sections = try #require(briefing.object["sections"] as? [[String: Any]], "\(briefing.text)")
                #expect(sections.map { $0["key"] as? String } == ["recovery", "sleep", "activity", "cardio", "body"], "\(sections)")
                for section in sections {
                    for field in ["key", "title", "status", "summary"] { #expect(section[field] is String, "\(field) in \(section)") }
                    for detail in section["details"] as? [[String: Any]] ?? [] { #expect(detail["label"] is String && detail["value"] is String) }
                }
                let sleep = try #require(sections.first { $0["key"] as? String == "sleep" })
                #expect(sleep["status"] as? String == "fair", "6 h 18 min asleep is lifelog's fair: \(sleep)")
                // Eleven days of data: the score is still calibrating, so no readiness figure is made up.
                #expect(briefing.object["readiness_score"] == nil && briefing.object["overall"] as? String == "", "\(briefing.text)")
                for card in briefing.object["metric_cards"] as? [[String: Any]] ?? [] { #expect(card["value"] is String && card["unit"] is String) }
                if briefing.object["readiness_score"] != nil { #expect(briefing.integer("readiness_score") != nil, "readiness_score must be an Int") }

                // The AI briefing: the four blocks, not generating, not disabled, and it says no model wrote it.
                let ai = try await ClientRequest.fixture("health-sync/13_read_ai_briefing", credential: key).send(http, path: "/api/ai-briefing?lang=\(lang)")
                #expect(ai.object["generating"] as? Bool == false && ai.object["disabled"] as? Bool == false && ai.object["insight"] is String)
                #expect(ai.object["blocks"] is [String: String] && ai.object["lang"] as? String == lang)
                let note = try #require(ai.object["note"] as? String)
                #expect((ai.object["recommendation"] as? String)?.hasSuffix(note) == true, "\(ai.text)")
                if lang == "en" { #expect(note.contains("no AI model")) }

                let insights = try await ClientRequest.fixture("health-sync/14_read_today_insights", credential: key)
                    .send(http, path: "/api/today-insights?lang=\(lang)")
                let primary = try #require(insights.object["primary"] as? [String: Any], "\(insights.text)")
                for field in ["date", "decision_id", "snapshot_version"] { #expect(insights.object[field] is String) }
                #expect(insights.object["generation"] is [String: Any] && primary["evidence_ids"] is [String] && primary["fallback"] as? Bool == true)

                let catalogue = try await ClientRequest.fixture("health-sync/21_read_sections_catalogue", credential: key)
                    .send(http, path: "/api/sections?lang=\(lang)")
                let entries = catalogue.object["sections"] as? [[String: Any]] ?? []
                #expect(entries.count == 5 && entries.allSatisfy { entry in ["key", "title", "subtitle", "icon"].allSatisfy { entry[$0] is String } })

                for name in ["recovery", "sleep", "activity", "cardio", "body"] {
                    let section = try await ClientRequest.fixture("health-sync/22_read_section", credential: key)
                        .send(http, path: "/api/section/\(name)?lang=\(lang)")
                    #expect(section.status == 200, "\(name): \(section.text)")
                    for field in ["details", "charts", "explains"] { #expect(section.object[field] is [Any], "\(name).\(field) must be an array") }
                    for chart in section.object["charts"] as? [[String: Any]] ?? [] {
                        // Every chart's metric is one the app can then fetch.
                        if let metric = chart["metric"] as? String {
                            let data = try await http.call(.get, "/api/metrics/data?metric=\(metric)&from=2026-08-13&to=2026-09-11&bucket=day",
                                                           headers: [HTTPField.Name("X-API-Key")!: key])
                            #expect(data.status == .ok && data.object["points"] is [Any], "\(metric): \(data.text)")
                        }
                    }
                }
            }
            let russian = try await http.call(.get, "/api/section/sleep?lang=ru", headers: [HTTPField.Name("X-API-Key")!: key])
            #expect(russian.object["title"] as? String == "Сон")

            // Readiness history: an array of {date, score: Int}, never null, even with no score yet.
            let history = try await ClientRequest.fixture("health-sync/15_read_readiness_history", credential: key).send(http)
            #expect(history.status == 200 && history.object["points"] is [Any], "\(history.text)")
            // Energy: lifelog computes none, and says so with an empty list under granularity "day".
            let energy = try await ClientRequest.fixture("health-sync/16_read_energy_history", credential: key).send(http)
            #expect(energy.object["granularity"] as? String == "day" && (energy.object["points"] as? [Any])?.isEmpty == true)

            let metrics = try await ClientRequest.fixture("health-sync/17_read_metrics_list", credential: key).send(http)
            #expect(metrics.array.count >= 10, "\(metrics.text)")
            for metric in metrics.array {
                #expect(metric["name"] is String && metric["units"] is String && metric["min"] is String && metric["max"] is String && metric["count"] is Int)
            }
            let steps = try #require(metrics.array.first { $0["name"] as? String == "step_count" })
            #expect(steps["count"] as? Int == 2 && steps["min"] as? String == "2026-09-10" && steps["max"] as? String == "2026-09-11")

            let range = try await ClientRequest.fixture("health-sync/20_read_metric_range", credential: key).send(http)
            #expect(range.object["min"] as? String == "2026-09-11" && range.object["max"] as? String == "2026-09-11", "\(range.text)")
        }
    }

    @Test func aWrongOrRevokedKeyIsRefusedAsTheAppExpects() async throws {
        try await AppHarness.with(now: Self.now) { _, http in
            let (token, key) = try await Self.user(http)
            // Uploads: 401, which the app shows as "configure the server URL and API key".
            let wrong = try await ClientRequest.fixture("health-sync/01_validate_connection", credential: "lld_not-a-key").send(http)
            #expect(wrong.status == 401)
            let missing = try await http.call(.post, "/health", json: #"{"data":{"metrics":[]}}"#)
            #expect(missing.status == .unauthorized)
            // Reads: a redirect, which the app reports as "check your API key" and never follows.
            let read = try await ClientRequest.fixture("health-sync/11_read_settings", credential: "lld_not-a-key").send(http)
            #expect(read.status == 302 && read.headers[.location] == "/api/v1/devices", "\(read.status) \(read.text)")

            // Revoked from GET/DELETE /devices: refused from then on.
            let devices = try await http.call(.get, "/api/v1/devices", token: token)
            let id = try #require((devices.object["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await ClientRequest.fixture("health-sync/02_ingest_metrics_incremental", credential: key).send(http).healthSyncAccepts)
            #expect(try await http.call(.delete, "/api/v1/devices/\(id)", token: token).status == .noContent)
            #expect(try await ClientRequest.fixture("health-sync/02_ingest_metrics_incremental", credential: key).send(http).status == 401)
            #expect(try await ClientRequest.fixture("health-sync/15_read_readiness_history", credential: key).send(http).status == 302)
            // A device key still reaches nothing of lifelog's own API.
            let (_, other) = try await Self.user(http, email: "bo@example.com")
            #expect(try await http.call(.get, "/api/v1/me", headers: [HTTPField.Name("X-API-Key")!: other]).status == .forbidden)
        }
    }
}
