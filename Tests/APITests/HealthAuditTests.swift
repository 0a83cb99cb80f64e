import API
import Foundation
import HummingbirdTesting
import Testing
import TestSupport

/// The data-integrity audit through HTTP: each type of finding raised by a crafted history and
/// not raised just under its threshold, the lifecycle (found again, cleared, acknowledged), the
/// summary, and another user's finding out of reach. Users live in UTC; "now" is 2026-06-01 10:00 UTC.
@Suite struct HealthAuditTests {
    typealias R = RecoveryRoutesTests

    static func steps(_ value: Double, on day: String, at hour: Int, minutes: Int = 10, source: String = "Watch", kind: String = "watch",
                      uuid: String? = nil) -> String {
        let start = "\(day)T\(R.twoDigits(hour)):00:00Z", end = "\(day)T\(R.twoDigits(hour)):\(R.twoDigits(minutes)):00Z"
        let id = uuid.map { #","uuid":"\#($0)""# } ?? ""
        return #"{"metric":"steps","value":\#(value),"start":"\#(start)","end":"\#(end)","source":{"name":"\#(source)","kind":"\#(kind)"}\#(id)}"#
    }

    static func findings(_ http: some TestClientProtocol, _ token: String, position: String, status: String = "all") async throws -> [[String: Any]] {
        let answer = try await http.call(.get, "/api/v1/health/quality?status=\(status)&min_position=\(position)", token: token)
        #expect(answer.status == .ok, "\(answer.text)")
        return answer.object["items"] as? [[String: Any]] ?? []
    }

    static func of(_ type: String, _ items: [[String: Any]]) -> [[String: Any]] {
        items.filter { $0["type"] as? String == type }
    }

    static func user(_ http: some TestClientProtocol, _ email: String) async throws -> String {
        try #require(try await http.register(email, timezone: "UTC").string("access_token"))
    }

    @Test func aBatchWithMoreThanAFifthOfDuplicatesIsFoundAndExactlyAFifthIsNot() async throws {
        try await AppHarness.with(now: R.now, asyncProjectors: true) { _, http in
            let token = try await Self.user(http, "dupes@example.com")
            let day = R.date(3)
            let old = (0..<10).map { Self.steps(100, on: day, at: $0) }
            _ = try await R.ingest(http, token, samples: old)
            // 10 of 40 again (25 %), then 8 of 40 (20 %: not more than a fifth).
            _ = try await R.ingest(http, token, samples: old + (10..<40).map { Self.steps(100, on: day, at: $0 % 24, minutes: 11 + $0 / 24) })
            let last = try await R.ingest(http, token, samples: Array(old.prefix(8)) + (0..<32).map { Self.steps(50, on: R.date(4), at: $0 % 24, minutes: 11 + $0 / 24) })
            let found = Self.of("duplicates", try await Self.findings(http, token, position: last))
            #expect(found.count == 1, "\(found)")
            let evidence = found.first?["evidence"] as? [String: Any]
            #expect(evidence?["received"] as? Double == 40)
            #expect(evidence?["duplicates"] as? Double == 10)
            #expect(evidence?["percent"] as? Double == 25)
            #expect(evidence?["format"] as? String == "native")
            #expect(found.first?["severity"] as? String == "info")
            #expect(found.first?["from"] as? String == day)
            #expect((found.first?["summary"] as? String)?.contains("25%") == true)
        }
    }

    @Test func samplesArrivingMoreThanSevenDaysLateAreAHistoricalInsertion() async throws {
        try await AppHarness.with(now: R.now, asyncProjectors: true) { _, http in
            let token = try await Self.user(http, "late@example.com")
            // Now is 2026-06-01 10:00: a sample ending 2026-05-25 09:10 is 7 days and 50 minutes old; one ending 10:10 is not yet 7 days.
            _ = try await R.ingest(http, token, samples: [Self.steps(300, on: "2026-05-25", at: 10)])
            let late = try await R.ingest(http, token, samples: [Self.steps(300, on: "2026-05-25", at: 9), Self.steps(200, on: "2026-05-20", at: 9)])
            let found = Self.of("historical_insertion", try await Self.findings(http, token, position: late))
            #expect(found.count == 1, "\(found)")
            #expect((found.first?["evidence"] as? [String: Any])?["count"] as? Double == 2)
            #expect((found.first?["evidence"] as? [String: Any])?["max_days_late"] as? Double == 12)
            #expect(found.first?["from"] as? String == "2026-05-20")
            #expect(found.first?["to"] as? String == "2026-05-25")
            #expect(found.first?["severity"] as? String == "warning")
            // from and to are filters: inverted, they match nothing, even a finding spanning both (issue 24: it was a 422).
            let inverted = try await http.call(.get, "/api/v1/health/quality?status=all&from=2026-05-24&to=2026-05-21&min_position=\(late)", token: token)
            #expect(inverted.status == .ok, "\(inverted.text)")
            #expect((inverted.object["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aMissingUsualDayIsAGapUntilItsDataArrives() async throws {
        try await AppHarness.with(now: R.now, asyncProjectors: true) { _, http in
            let token = try await Self.user(http, "gaps@example.com")
            // Steps every day from 31 days back to 2 days back and today: yesterday is missing.
            // Heart rate on 23 of the 30 days before its missing week (under 80 %): no gap.
            var samples = (2...31).map { Self.steps(5_000, on: R.date($0), at: 9) } + [Self.steps(1_000, on: R.today, at: 8)]
            samples += (9...31).map { #"{"metric":"heart_rate","value":60,"start":"\#(R.date($0))T09:00:00Z","end":"\#(R.date($0))T09:00:00Z","source":{"name":"Watch","kind":"watch"}}"# }
            samples.append(#"{"metric":"heart_rate","value":60,"start":"\#(R.today)T08:00:00Z","end":"\#(R.today)T08:00:00Z","source":{"name":"Watch","kind":"watch"}}"#)
            let position = try await R.ingest(http, token, samples: samples)
            let gaps = Self.of("gap", try await Self.findings(http, token, position: position))
            #expect(gaps.count == 1, "\(gaps)")
            #expect(gaps.first?["metric"] as? String == "steps")
            #expect(gaps.first?["from"] as? String == R.date(1))
            #expect((gaps.first?["evidence"] as? [String: Any])?["days_with_data"] as? Double == 30)
            let summary = try await http.call(.get, "/api/v1/health/quality/summary?min_position=\(position)", token: token)
            #expect((summary.object["counts"] as? [String: Any])?["gap"] as? Int == 1)
            // Thirty days sent at once are also a backfill: late data, a warning (a gap alone is information).
            #expect((summary.object["counts"] as? [String: Any])?["historical_insertion"] as? Int == 1)
            #expect(summary.string("state") == "warning")

            // The day's data arrives: the same finding resolves (no second one), and a resolved one cannot be acknowledged.
            let filled = try await R.ingest(http, token, samples: [Self.steps(4_000, on: R.date(1), at: 9)])
            let after = Self.of("gap", try await Self.findings(http, token, position: filled))
            #expect(after.count == 1)
            #expect(after.first?["status"] as? String == "resolved")
            #expect(Self.of("gap", try await Self.findings(http, token, position: filled, status: "open")).isEmpty)
            let id = try #require(after.first?["id"] as? String)
            let refused = try await http.call(.patch, "/api/v1/health/quality/\(id)", token: token, json: #"{"status":"acknowledged"}"#)
            #expect(refused.status == .conflict)
        }
    }

    @Test func aDaySyncedAroundIsAGapWhenTheNextDaysDataArrives() async throws {
        try await AppHarness.with(now: R.now, asyncProjectors: true) { harness, http in
            let token = try await Self.user(http, "daily@example.com")
            // A month synced in one go, then day by day as an app does; two days back is skipped.
            // Each request is audited before the next arrives (the reads wait for it), as when
            // an app syncs once a day.
            let month = try await R.ingest(http, token, samples: (3...33).map { Self.steps(5_000, on: R.date($0), at: 9) })
            #expect(Self.of("gap", try await Self.findings(http, token, position: month)).isEmpty)
            let yesterday = try await R.ingest(http, token, samples: [Self.steps(5_000, on: R.date(1), at: 9)])
            let gaps = Self.of("gap", try await Self.findings(http, token, position: yesterday))
            #expect(gaps.map { $0["from"] as? String } == [R.date(2)], "\(gaps)")
            let today = try await R.ingest(http, token, samples: [Self.steps(1_000, on: R.today, at: 8)])
            #expect(Self.of("gap", try await Self.findings(http, token, position: today)).count == 1)
            _ = harness
        }
    }

    @Test func twoSourcesThatDisagreeOnThreeOfTheLastSevenDays() async throws {
        try await AppHarness.with(now: R.now, asyncProjectors: true) { _, http in
            func walks(_ phone: [Int: Double]) -> [String] {
                (1...6).flatMap { offset in
                    [Self.steps(1_000, on: R.date(offset), at: 8), Self.steps(phone[offset] ?? 950, on: R.date(offset), at: 8, source: "iPhone", kind: "phone")]
                }
            }
            // 30 % apart on three days: found. On two days (and 25 % exactly on a third): not.
            let a = try await Self.user(http, "diverge@example.com")
            let found = try await R.ingest(http, a, samples: walks([1: 700, 3: 700, 5: 690]))
            let divergence = Self.of("source_divergence", try await Self.findings(http, a, position: found))
            #expect(divergence.count == 1, "\(divergence)")
            let evidence = divergence.first?["evidence"] as? [String: Any]
            #expect(evidence?["diverging_days"] as? Double == 3)
            #expect(Set([evidence?["source_a"] as? String, evidence?["source_b"] as? String]) == ["Watch", "iPhone"])
            #expect(divergence.first?["from"] as? String == R.date(5))
            #expect(divergence.first?["to"] as? String == R.date(1))

            let b = try await Self.user(http, "agree@example.com")
            let under = try await R.ingest(http, b, samples: walks([1: 700, 3: 700, 5: 750]))
            #expect(Self.of("source_divergence", try await Self.findings(http, b, position: under)).isEmpty)
        }
    }

    @Test func deletingMoreThanATenthOfAnOldDaysSamplesIsCriticalAndCanBeAcknowledged() async throws {
        try await AppHarness.with(now: R.now, asyncProjectors: true) { _, http in
            let day = R.date(10)
            let samples = (0..<20).map { Self.steps(100, on: day, at: $0, uuid: "s-\($0)") }
            let a = try await Self.user(http, "deleter@example.com")
            _ = try await R.ingest(http, a, samples: samples)
            let deleted = try await R.ingest(http, a, deletions: ["s-1", "s-2", "s-3"])
            let found = Self.of("mass_deletion", try await Self.findings(http, a, position: deleted))
            #expect(found.count == 1, "\(found)")
            #expect(found.first?["severity"] as? String == "critical")
            #expect(found.first?["severity_label"] as? String == "Serious" && found.first?["color_token"] as? String == "ds.semantic.negative")
            #expect(found.first?["metric"] as? String == "steps")
            let evidence = found.first?["evidence"] as? [String: Any]
            #expect(evidence?["removed"] as? Double == 3)
            #expect(evidence?["stored_before"] as? Double == 20)
            let summary = try await http.call(.get, "/api/v1/health/quality/summary?min_position=\(deleted)", token: a)
            #expect(summary.string("state") == "critical")
            #expect(summary.string("color_token") == "ds.semantic.negative")

            // Another user cannot see or acknowledge it.
            let b = try await Self.user(http, "other@example.com")
            let id = try #require(found.first?["id"] as? String)
            let foreign = try await http.call(.patch, "/api/v1/health/quality/\(id)", token: b, json: #"{"status":"acknowledged"}"#)
            #expect(foreign.status == .notFound)
            #expect(try await Self.findings(http, b, position: deleted).isEmpty)
            let wrong = try await http.call(.patch, "/api/v1/health/quality/\(id)", token: a, json: #"{"status":"resolved"}"#)
            #expect(wrong.status == .unprocessableContent)

            let acknowledged = try await http.call(.patch, "/api/v1/health/quality/\(id)?lang=ru", token: a, json: #"{"status":"acknowledged"}"#)
            #expect(acknowledged.status == .ok, "\(acknowledged.text)")
            #expect(acknowledged.string("status") == "acknowledged")
            #expect(acknowledged.string("type_label") == "Массовое удаление")
            let position = try #require(acknowledged.string("position"))
            #expect(Self.of("mass_deletion", try await Self.findings(http, a, position: position, status: "open")).isEmpty)
            #expect(Self.of("mass_deletion", try await Self.findings(http, a, position: position, status: "acknowledged")).count == 1)
            // What stays open is the samples' own late arrival (ten days back): a warning, no longer critical.
            let calm = try await http.call(.get, "/api/v1/health/quality/summary?min_position=\(position)", token: a)
            #expect(calm.string("state") == "warning")
            #expect((calm.object["counts"] as? [String: Any])?["mass_deletion"] as? Int == 0)
            #expect(calm.object["acknowledged"] as? Int == 1)

            // Two of twenty (10 %) is not more than a tenth.
            let c = try await Self.user(http, "careful@example.com")
            _ = try await R.ingest(http, c, samples: samples)
            let few = try await R.ingest(http, c, deletions: ["s-1", "s-2"])
            #expect(Self.of("mass_deletion", try await Self.findings(http, c, position: few)).isEmpty)
        }
    }
}
