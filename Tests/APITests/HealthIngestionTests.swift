import API
import Domain
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TestSupport

/// Health ingestion through the native batch, and the day, night and workout reads it feeds.
/// The user lives in Europe/Belgrade (UTC+1 in March); "now" is 2026-03-10 12:00 UTC.
@Suite struct HealthIngestionTests {
    static let now = Date(timeIntervalSince1970: 1_773_144_000)  // 2026-03-10T12:00:00Z

    static func sample(_ metric: String, _ value: Double, _ start: String, _ end: String, source: String, kind: String,
                       unit: String? = nil, uuid: String? = nil) -> String {
        var fields = [#""metric":"\#(metric)""#, #""value":\#(value)"#, #""start":"\#(start)""#, #""end":"\#(end)""#,
                      #""source":{"name":"\#(source)","kind":"\#(kind)"}"#]
        if let unit { fields.append(#""unit":"\#(unit)""#) }
        if let uuid { fields.append(#""uuid":"\#(uuid)""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func batch(samples: [String] = [], sleep: [String] = [], workouts: [String] = [], deletions: [String] = []) -> String {
        let quoted = deletions.map { "\"\($0)\"" }
        return #"{"samples":[\#(samples.joined(separator: ","))],"sleep":[\#(sleep.joined(separator: ","))],"#
            + #""workouts":[\#(workouts.joined(separator: ","))],"deletions":[\#(quoted.joined(separator: ","))]}"#
    }

    /// Every stored item as "uuid value" ("-" for none), in time order.
    static func storedItems(_ harness: AppHarness) async throws -> [String] {
        let rows = try await harness.client.query("SELECT uuid, value FROM rm_health_records ORDER BY start_s", logger: TestDatabase.logger)
        return try await rows.decode((String?, Double).self).reduce(into: [String]()) { $0.append("\($1.0 ?? "-") \($1.1)") }
    }

    /// Registers `email`, stores the batch `stored`, then sends `batch`: the token and the answer (200).
    static func storedThenSent(_ http: some TestClientProtocol, _ email: String, _ stored: String, _ batch: String) async throws
        -> (token: String, answer: JSONResponse) {
        let token = try #require(try await http.register(email).string("access_token"))
        #expect(try await http.call(.post, "/api/v1/ingest/health", token: token, json: stored).status == .ok)
        let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: batch)
        #expect(answer.status == .ok, "\(answer.text)")
        return (token, answer)
    }

    static func counts(_ response: JSONResponse) -> [String: Int] {
        var found: [String: Int] = [:]
        for key in ["received", "inserted", "updated", "duplicates", "deleted", "rejected", "skipped"] {
            found[key] = response.object[key] as? Int
        }
        return found
    }

    /// The day rows of one metric, after waiting for `position`.
    static func days(_ http: some TestClientProtocol, _ token: String, _ metric: String, position: String?,
                     from: String = "2026-03-01", to: String = "2026-03-10") async throws -> [[String: Any]] {
        let wait = position.map { "&min_position=\($0)" } ?? ""
        let answer = try await http.call(.get, "/api/v1/health/daily?from=\(from)&to=\(to)&metrics=\(metric)\(wait)", token: token)
        #expect(answer.status == .ok, "\(answer.text)")
        return answer.object["days"] as? [[String: Any]] ?? []
    }

    @Test func aWatchAndAPhoneOverOneWalkCountOnceAndAPhoneOnlyWalkAdds() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let token = try #require(try await http.register("walker@example.com").string("access_token"))
            let body = Self.batch(samples: [
                Self.sample("steps", 1_000, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Apple Watch", kind: "watch"),
                Self.sample("steps", 900, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "iPhone", kind: "phone"),
                Self.sample("steps", 500, "2026-03-09T17:00:00Z", "2026-03-09T17:05:00Z", source: "iPhone", kind: "phone"),
                Self.sample("heart_rate", 60, "2026-03-09T08:00:00Z", "2026-03-09T08:00:00Z", source: "Apple Watch", kind: "watch"),
                Self.sample("heart_rate", 80, "2026-03-09T09:00:00Z", "2026-03-09T09:00:00Z", source: "Apple Watch", kind: "watch"),
            ])
            let first = try await http.call(.post, "/api/v1/ingest/health", token: token, json: body)
            #expect(first.status == .ok, "\(first.text)")
            #expect(Self.counts(first) == ["received": 5, "inserted": 5, "updated": 0, "duplicates": 0, "deleted": 0, "rejected": 0, "skipped": 0])
            let position = try #require(first.string("position"))

            let steps = try await Self.days(http, token, "steps", position: position)
            #expect(steps.count == 1)
            #expect(steps.first?["date"] as? String == "2026-03-09")
            #expect(steps.first?["value"] as? Double == 1_500)
            #expect(steps.first?["unit"] as? String == "count")
            #expect(steps.first?["source"] as? String == "Apple Watch")
            #expect(steps.first?["decided_by"] as? String == "samples")
            let heart = try await Self.days(http, token, "heart_rate", position: position)
            #expect(heart.first?["value"] as? Double == 70)
            #expect(heart.first?["min"] as? Double == 60)
            #expect(heart.first?["max"] as? Double == 80)

            // The same batch again (a retry): every item a duplicate, nothing new in the log.
            let again = try await http.call(.post, "/api/v1/ingest/health", token: token, json: body)
            #expect(Self.counts(again) == ["received": 5, "inserted": 0, "updated": 0, "duplicates": 5, "deleted": 0, "rejected": 0, "skipped": 0])
            #expect(again.string("position") == position)
            let events = try await harness.count("SELECT count(*) FROM events WHERE event_type = 'health.records_stored'")
            #expect(events == 1)
        }
    }

    @Test func oneBadItemIsRejectedWithItsReasonAndTheRestAreStored() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("mixed@example.com").string("access_token"))
            let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                Self.sample("steps", 100, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch"),
                Self.sample("mood", 3, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 100, "2026-03-09T08:10:00Z", "2026-03-09T08:00:00Z", source: "Watch", kind: "watch"),
                Self.sample("heart_rate", 400, "2026-03-09T08:00:00Z", "2026-03-09T08:00:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 100, "2026-03-12T08:00:00Z", "2026-03-12T08:10:00Z", source: "Watch", kind: "watch"),
                #"{"metric":"steps","value":"many","start":"2026-03-09T08:00:00Z","end":"2026-03-09T08:10:00Z","source":{"name":"Watch"}}"#,
            ]))
            #expect(answer.status == .ok)
            #expect(Self.counts(answer)["inserted"] == 1)
            #expect(Self.counts(answer)["rejected"] == 5)
            let errors = answer.object["errors"] as? [[String: Any]] ?? []
            #expect(errors.map { $0["field"] as? String ?? "" } == [
                "samples[5].value", "samples[1].metric", "samples[2].end", "samples[3].value", "samples[4].end",
            ])
            #expect(errors.map { $0["index"] as? Int ?? -1 } == [5, 1, 2, 3, 4])
            let steps = try await Self.days(http, token, "steps", position: answer.string("position"))
            #expect(steps.first?["value"] as? Double == 100)
        }
    }

    /// Issue 24 item 9: `rejected` and `received` count items, not error entries (an item with
    /// four wrong fields is one item); every error's `index` is its item's place in the request's
    /// array, also when an item before it failed to decode; a uuid over its 100 characters is the
    /// item's error (it was stored without its uuid); a mistyped optional field is an error, not
    /// ignored; a NUL in a member nothing reads is ignored, in a kept string it is the item's error.
    @Test func rejectedCountsItemsAndEveryErrorCarriesItsItemsIndex() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("counted@example.com").string("access_token"))
            let longId = String(repeating: "a", count: 101)
            let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                #"{"metric":5,"value":"x","start":"soon","end":null,"source":{"name":"Watch"},"x":"\u0000"}"#,
                Self.sample("heart_rate", 400, "2026-03-09T08:00:00Z", "2026-03-09T08:00:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 100, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch", uuid: longId),
                Self.sample("steps", 100, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch", unit: "count"),
                #"{"metric":"steps","value":1,"unit":7,"start":"2026-03-09T09:00:00Z","end":"2026-03-09T09:10:00Z","source":{"name":"W\u0000"}}"#,
            ], sleep: [
                #"{"stage":"deep","start":1,"end":2,"source":{}}"#,
                #"{"stage":"nap","start":"2026-03-09T01:00:00Z","end":"2026-03-09T02:00:00Z","source":{"name":"Ring","kind":"ring"}}"#,
            ], deletions: ["", longId, "kept-uuid"]))
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(Self.counts(answer) == ["received": 10, "inserted": 1, "updated": 0, "duplicates": 0, "deleted": 0, "rejected": 8, "skipped": 1])
            let errors = answer.object["errors"] as? [[String: Any]] ?? []
            let byField = Dictionary(errors.map { ($0["field"] as? String ?? "", $0["index"] as? Int ?? -1) }, uniquingKeysWith: { first, _ in first })
            #expect(Set(errors.compactMap { $0["field"] as? String }.filter { $0.hasPrefix("samples[0].") })
                == ["samples[0].metric", "samples[0].value", "samples[0].start", "samples[0].end"])
            #expect(byField["samples[1].value"] == 1)
            #expect(byField["samples[2].uuid"] == 2)
            #expect(byField["samples[4].unit"] == 4)
            #expect(byField["samples[4].source.name"] == 4)
            #expect(byField["sleep[1].stage"] == 1)
            #expect(byField["deletions[0]"] == 0)
            #expect(byField["deletions[1]"] == 1)
            #expect(byField.keys.contains("samples[0].x") == false)
        }
    }

    @Test func aBodyThatIsNotABatchIsRefusedWhole() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let token = try #require(try await http.register("broken@example.com").string("access_token"))
            for body in ["not json", "[1,2]", #"{"samples": 3}"#, #"{"sleep": null}"#] {
                let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.headers[.contentType] == "application/problem+json")
            }
            // Over 50,000 items: 413, and nothing of it is stored.
            let many = (0..<50_001).map { "u\($0)" }
            let big = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(
                samples: [Self.sample("steps", 1, "2026-03-09T08:00:00Z", "2026-03-09T08:01:00Z", source: "Watch", kind: "watch")],
                deletions: many))
            #expect(big.status == .contentTooLarge)
            #expect(try await harness.count("SELECT count(*) FROM rm_health_records") == 0)
        }
    }

    @Test func unitsAreConvertedOnTheWayInAndEveryReadSaysItsUnit() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("units@example.com").string("access_token"))
            let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                Self.sample("active_energy", 418.4, "2026-03-09T08:00:00Z", "2026-03-09T09:00:00Z", source: "Watch", kind: "watch", unit: "kJ"),
                Self.sample("body_mass", 154, "2026-03-09T07:00:00Z", "2026-03-09T07:00:00Z", source: "Scale", kind: "scale", unit: "lb"),
                Self.sample("distance", 2, "2026-03-09T08:00:00Z", "2026-03-09T09:00:00Z", source: "Watch", kind: "watch", unit: "mi"),
                Self.sample("spo2", 0.97, "2026-03-08T03:00:00Z", "2026-03-08T03:00:00Z", source: "Watch", kind: "watch", unit: "%"),
                Self.sample("spo2", 95, "2026-03-09T03:00:00Z", "2026-03-09T03:00:00Z", source: "Watch", kind: "watch", unit: "%"),
            ]))
            let position = answer.string("position")
            let energy = try await Self.days(http, token, "active_energy", position: position)
            #expect(energy.first?["value"] as? Double == 100)
            #expect(energy.first?["unit"] as? String == "kcal")
            let mass = try await Self.days(http, token, "body_mass", position: position)
            #expect(mass.first?["value"] as? Double == 69.853)
            #expect(mass.first?["unit"] as? String == "kg")
            let distance = try await Self.days(http, token, "distance", position: position)
            #expect(distance.first?["value"] as? Double == 3_218.688)
            #expect(distance.first?["unit"] as? String == "m")
            let spo2 = try await Self.days(http, token, "spo2", position: position)
            #expect(spo2.map { $0["value"] as? Double } == [97, 95])
            #expect(spo2.first?["unit"] as? String == "%")
        }
    }

    @Test func aManualValueOutlivesLaterSyncsUntilItIsRemoved() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("coach@example.com").string("access_token"))
            let glitch = Self.sample("steps", 90_000, "2026-03-09T08:00:00Z", "2026-03-09T09:00:00Z", source: "Watch", kind: "watch")
            _ = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [glitch]))
            let manual = try await http.call(.put, "/api/v1/health/manual/steps/2026-03-09", token: token, json: #"{"value": 9000}"#)
            #expect(manual.status == .ok, "\(manual.text)")
            let later = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                Self.sample("steps", 5_000, "2026-03-09T12:00:00Z", "2026-03-09T13:00:00Z", source: "Watch", kind: "watch"),
            ]))
            var steps = try await Self.days(http, token, "steps", position: later.string("position"))
            #expect(steps.first?["value"] as? Double == 9_000)
            #expect(steps.first?["decided_by"] as? String == "manual")

            let removed = try await http.call(.delete, "/api/v1/health/manual/steps/2026-03-09", token: token)
            #expect(removed.status == .noContent)
            #expect(try await http.call(.delete, "/api/v1/health/manual/steps/2026-03-09", token: token).status == .notFound)
            // Nothing newer to wait for than the removal: the settings stream's last event.
            let after = try await http.call(.put, "/api/v1/health/manual/steps/2026-03-08", token: token, json: #"{"value": 1}"#)
            steps = try await Self.days(http, token, "steps", position: after.string("position"))
            #expect(steps.first { $0["date"] as? String == "2026-03-09" }?["value"] as? Double == 95_000)
            #expect(steps.first { $0["date"] as? String == "2026-03-09" }?["decided_by"] as? String == "samples")
            // A manual value is checked like a sample: a future date or an impossible value is 422.
            #expect(try await http.call(.put, "/api/v1/health/manual/steps/2026-03-20", token: token, json: #"{"value": 1}"#).status.code == 422)
            #expect(try await http.call(.put, "/api/v1/health/manual/heart_rate/2026-03-09", token: token, json: #"{"value": 0}"#).status.code == 422)
        }
    }

    @Test func aDeletionByUUIDRemovesTheSampleFromEveryRead() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("deleter@example.com").string("access_token"))
            let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
            _ = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                Self.sample("steps", 700, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch", uuid: id),
                Self.sample("steps", 300, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch"),
            ]))
            let deleted = try await http.call(.post, "/api/v1/ingest/health", token: token,
                                              json: Self.batch(deletions: [id.lowercased(), "never-sent"]))
            #expect(Self.counts(deleted)["deleted"] == 1)
            #expect(Self.counts(deleted)["skipped"] == 1)
            let steps = try await Self.days(http, token, "steps", position: deleted.string("position"))
            #expect(steps.first?["value"] as? Double == 300)
            let latest = try await http.call(.get, "/api/v1/health/latest", token: token)
            #expect((latest.object["items"] as? [[String: Any]])?.first?["value"] as? Double == 300)
        }
    }

    @Test func sleepCountsForTheMorningItEndsOnFromTheHigherPrioritySource() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("sleeper@example.com").string("access_token"))
            func segment(_ stage: String, _ start: String, _ end: String, _ source: String, _ kind: String) -> String {
                #"{"stage":"\#(stage)","start":"\#(start)","end":"\#(end)","source":{"name":"\#(source)","kind":"\#(kind)"}}"#
            }
            // 23:00 to 07:00 Belgrade time (UTC+1), across midnight; a ring saw a shorter night.
            let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(sleep: [
                segment("in_bed", "2026-03-08T21:50:00Z", "2026-03-09T06:10:00Z", "Watch", "watch"),
                segment("core", "2026-03-08T22:00:00Z", "2026-03-09T01:00:00Z", "Watch", "watch"),
                segment("deep", "2026-03-09T01:00:00Z", "2026-03-09T02:30:00Z", "Watch", "watch"),
                segment("awake", "2026-03-09T02:30:00Z", "2026-03-09T02:40:00Z", "Watch", "watch"),
                segment("rem", "2026-03-09T02:40:00Z", "2026-03-09T04:00:00Z", "Watch", "watch"),
                segment("core", "2026-03-09T03:30:00Z", "2026-03-09T06:00:00Z", "Watch", "watch"),
                segment("asleep", "2026-03-08T23:00:00Z", "2026-03-09T05:00:00Z", "Ring", "ring"),
            ]))
            #expect(Self.counts(answer)["inserted"] == 7)
            let position = try #require(answer.string("position"))
            let night = try await http.call(.get, "/api/v1/health/sleep/2026-03-09?min_position=\(position)", token: token)
            #expect(night.status == .ok, "\(night.text)")
            #expect(night.string("source") == "Watch")
            // Asleep: 22:00–02:30 and 02:40–06:00 (the overlapping REM and core merge): 470 minutes.
            #expect(night.object["asleep_minutes"] as? Int == 470)
            #expect(night.object["deep_minutes"] as? Int == 90)
            #expect(night.object["awake_minutes"] as? Int == 10)
            #expect(night.object["in_bed_minutes"] as? Int == 500)
            #expect(night.string("start") == "2026-03-08T22:00:00Z")
            #expect(night.string("end") == "2026-03-09T06:00:00Z")
            #expect((night.object["segments"] as? [[String: Any]])?.count == 6)
            let range = try await http.call(.get, "/api/v1/health/sleep?from=2026-03-08&to=2026-03-10", token: token)
            #expect((range.object["items"] as? [[String: Any]])?.map { $0["date"] as? String } == ["2026-03-09"])
            #expect(try await http.call(.get, "/api/v1/health/sleep/2026-03-08", token: token).status == .notFound)

            // With the ring put first, the same night is the ring's.
            let reordered = try await http.call(.put, "/api/v1/health/source-priority", token: token, json: #"{"order":["ring","watch"]}"#)
            #expect((reordered.object["order"] as? [String])?.prefix(3) == ["ring", "watch", "manual"])
            // Wait for the recomputation by writing after it and waiting for that.
            let marker = try await http.call(.put, "/api/v1/health/manual/steps/2026-03-01", token: token, json: #"{"value": 1}"#)
            let ring = try await http.call(.get, "/api/v1/health/sleep/2026-03-09?min_position=\(marker.string("position") ?? "")", token: token)
            #expect(ring.string("source") == "Ring")
            #expect(ring.object["asleep_minutes"] as? Int == 360)
        }
    }

    @Test func aWorkoutSeenByTheWatchAndThePhoneIsListedOnce() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("runner@example.com").string("access_token"))
            func workout(_ start: String, _ end: String, _ source: String, _ kind: String, energy: Double) -> String {
                #"{"type":"running","start":"\#(start)","end":"\#(end)","active_energy_kcal":\#(energy),"source":{"name":"\#(source)","kind":"\#(kind)"}}"#
            }
            let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(workouts: [
                workout("2026-03-09T07:00:30Z", "2026-03-09T07:31:00Z", "iPhone", "phone", energy: 250),
                workout("2026-03-09T07:00:00Z", "2026-03-09T07:30:00Z", "Apple Watch", "watch", energy: 300),
                workout("2026-03-09T18:00:00Z", "2026-03-09T18:45:00Z", "iPhone", "phone", energy: 200),
            ]))
            #expect(Self.counts(answer)["inserted"] == 3)
            let list = try await http.call(.get, "/api/v1/health/workouts?from=2026-03-09&to=2026-03-09", token: token)
            let items = list.object["items"] as? [[String: Any]] ?? []
            #expect(items.map { $0["source"] as? String } == ["Apple Watch", "iPhone"])
            #expect(items.first?["active_energy_kcal"] as? Double == 300)
            #expect(items.first?["duration_seconds"] as? Int == 1_800)
        }
    }

    @Test func twoIdenticalBatchesAtOnceAreStoredOnce() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let token = try #require(try await http.register("twice@example.com").string("access_token"))
            let body = Self.batch(samples: (0..<200).map { minute in
                let at: String = String(format: "2026-03-09T%02d:%02d", 8 + minute / 60, minute % 60)
                return Self.sample("steps", 10, at + ":00Z", at + ":30Z", source: "Watch", kind: "watch")
            })
            let answers = try await withThrowingTaskGroup(of: JSONResponse.self) { group in
                for _ in 0..<2 { group.addTask { try await http.call(.post, "/api/v1/ingest/health", token: token, json: body) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.map { Self.counts($0)["inserted"] ?? -1 }.sorted() == [0, 200])
            #expect(answers.map { Self.counts($0)["duplicates"] ?? -1 }.sorted() == [0, 200])
            #expect(try await harness.count("SELECT count(*) FROM rm_health_records") == 200)
            let steps = try await Self.days(http, token, "steps", position: answers.compactMap { $0.string("position") }.max())
            #expect(steps.first?["value"] as? Double == 2_000)
        }
    }

    /// An item sent with the content of another stored item takes that item's row (one row per
    /// content), and with it the other item's uuid goes: a later item with that uuid, even in
    /// the same batch, is new. Before, the batch stored the uuid on two rows, which the table's
    /// unique index refused: a 500, and the batch lost.
    @Test func anItemTakingAnotherItemsContentFreesThatItemsUUID() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: false) { harness, http in
            let token = try #require(try await http.register("swap@example.com").string("access_token"))
            let stored = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Phone", kind: "phone", uuid: "aaaa-1"),
                Self.sample("steps", 20, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Watch", kind: "watch", uuid: "bbbb-2"),
            ])
            #expect(try await http.call(.post, "/api/v1/ingest/health", token: token, json: stored).status == .ok)
            // The first item moves onto the second's content; the second's uuid comes back elsewhere.
            let moved = Self.batch(samples: [
                Self.sample("steps", 30, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Watch", kind: "watch", uuid: "aaaa-1"),
                Self.sample("steps", 40, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Phone", kind: "phone", uuid: "bbbb-2"),
            ])
            let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: moved)
            #expect(answer.status == .ok, "\(answer.text)")
            // bbbb-2 was stored before: moved to 10:00, it is an update (was counted new).
            #expect(Self.counts(answer)["inserted"] == 0 && Self.counts(answer)["updated"] == 2, "\(answer.text)")
            let found = try await Self.storedItems(harness)
            #expect(found == ["aaaa-1 30.0", "bbbb-2 40.0"])
        }
    }

    /// An item sent and deleted in one batch never reaches the log and moves no other item: here
    /// it had the content of a stored item whose uuid comes back in the same batch. Before, it
    /// moved that item off its row before it left, and the batch put a uuid on two rows (a 500).
    @Test func anItemSentAndDeletedInOneBatchMovesNoOtherItem() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: false) { harness, http in
            let stored = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch", uuid: "aaaa-1"),
                Self.sample("steps", 20, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Phone", kind: "phone", uuid: "bbbb-2"),
            ])
            let batch = Self.batch(samples: [
                Self.sample("steps", 30, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Phone", kind: "phone", uuid: "aaaa-1"),
                Self.sample("steps", 40, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 50, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch", uuid: "bbbb-2"),
            ], deletions: ["aaaa-1"])
            let (token, _) = try await Self.storedThenSent(http, "sent-deleted@example.com", stored, batch)
            let found = try await Self.storedItems(harness)
            // The 08:00 item's content now has no uuid (so aaaa-1 is gone with it); bbbb-2 moved to 10:00.
            #expect(found == ["- 40.0", "bbbb-2 50.0"])
            // Sent again, the batch adds nothing.
            let again = try await http.call(.post, "/api/v1/ingest/health", token: token, json: batch)
            #expect(Self.counts(again)["inserted"] == 0 && Self.counts(again)["updated"] == 0, "\(again.text)")
        }
    }

    /// A batch that names one item twice stores its last content; the first moves nothing.
    /// Before, the first took another item's row on its way and the second moved on, so that
    /// item was lost from the decision while its row kept its uuid: a uuid on two rows (a 500).
    @Test func anItemNamedTwiceInABatchIsStoredAsItsLastContent() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: false) { harness, http in
            let stored = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Phone", kind: "phone", uuid: "aaaa-1"),
                Self.sample("steps", 20, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Watch", kind: "watch", uuid: "cccc-3"),
            ])
            let batch = Self.batch(samples: [
                Self.sample("steps", 30, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Phone", kind: "phone", uuid: "cccc-3"),
                Self.sample("steps", 40, "2026-03-09T07:00:00Z", "2026-03-09T07:10:00Z", source: "Watch", kind: "watch", uuid: "cccc-3"),
                Self.sample("steps", 50, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Watch", kind: "watch", uuid: "aaaa-1"),
            ])
            let (_, answer) = try await Self.storedThenSent(http, "twice-named@example.com", stored, batch)
            // The first content of cccc-3 is overtaken by its second: it changes nothing stored.
            #expect(Self.counts(answer)["updated"] == 2 && Self.counts(answer)["duplicates"] == 1, "\(answer.text)")
            let found = try await Self.storedItems(harness)
            #expect(found == ["cccc-3 40.0", "aaaa-1 50.0"])
        }
    }

    /// An edited item (found by its uuid) moving onto a content another item of the same batch
    /// has just taken gets that row; the batch's insert names each row once. Before, both went
    /// into one insert: PostgreSQL refuses to update a row twice in one statement (a 500).
    @Test func anItemMovingOntoAContentTheBatchAlreadyTookGetsItsRow() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: false) { harness, http in
            let stored = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 20, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Phone", kind: "phone", uuid: "bbbb-2"),
            ])
            let batch = Self.batch(samples: [
                Self.sample("steps", 30, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 40, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch", uuid: "bbbb-2"),
            ])
            _ = try await Self.storedThenSent(http, "moving@example.com", stored, batch)
            let found = try await Self.storedItems(harness)
            #expect(found == ["bbbb-2 40.0"])
        }
    }

    /// A batch whose items take each other's rows out of order: the stored item's uuid comes
    /// back on a content an earlier item of the batch took, after another item took the stored
    /// item's row. Before, the row that took the uuid was written before the row that gave it up
    /// (a uuid on two rows for a moment, which the index refuses: a 500).
    @Test func aUUIDGivenUpAndTakenInOneBatchIsWrittenInAnOrderTheIndexAccepts() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: false) { harness, http in
            let stored = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Phone", kind: "phone", uuid: "aaaa-1"),
            ])
            let batch = Self.batch(samples: [
                Self.sample("steps", 30, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 20, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Phone", kind: "phone"),
                Self.sample("steps", 40, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch", uuid: "aaaa-1"),
            ])
            let (token, answer) = try await Self.storedThenSent(http, "given-up@example.com", stored, batch)
            // The 10:00 item without a uuid is overtaken by aaaa-1's new content: it changes nothing stored.
            #expect(Self.counts(answer)["inserted"] == 0 && Self.counts(answer)["updated"] == 2 && Self.counts(answer)["duplicates"] == 1,
                    "\(answer.text)")
            #expect(try await Self.storedItems(harness) == ["- 20.0", "aaaa-1 40.0"])
            let again = try await http.call(.post, "/api/v1/ingest/health", token: token, json: batch)
            #expect(Self.counts(again)["inserted"] == 0 && Self.counts(again)["updated"] == 0, "\(again.text)")
        }
    }

    /// Two edited items moving onto one content: the last takes the row, and the first's old
    /// row goes too. Before, the first's old row stayed, with its uuid and old value.
    @Test func twoItemsMovingOntoOneContentLeaveNeitherOldRow() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let stored = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Phone", kind: "phone", uuid: "aaaa-1"),
                Self.sample("steps", 20, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Watch", kind: "watch", uuid: "bbbb-2"),
            ])
            let batch = Self.batch(samples: [
                Self.sample("steps", 30, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch", uuid: "aaaa-1"),
                Self.sample("steps", 40, "2026-03-09T10:00:00Z", "2026-03-09T10:10:00Z", source: "Watch", kind: "watch", uuid: "bbbb-2"),
            ])
            let (token, answer) = try await Self.storedThenSent(http, "both-moving@example.com", stored, batch)
            #expect(Self.counts(answer)["updated"] == 2, "\(answer.text)")
            #expect(try await Self.storedItems(harness) == ["bbbb-2 40.0"])
            let days = try await Self.days(http, token, "steps", position: answer.string("position"))
            #expect(days.first?["value"] as? Double == 40, "\(days)")
        }
    }

    /// An edited item moving onto a content whose row a later item of the batch keeps as it was:
    /// the batch stores nothing new, but the edited item's old row goes, and the answer counts
    /// one update (the item that moved) and one duplicate (before: two updates).
    @Test func anItemMovingOntoARowThatEndsUnchangedStillLeavesItsOldRow() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let stored = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch", uuid: "aaaa-1"),
                Self.sample("steps", 20, "2026-03-09T09:00:00Z", "2026-03-09T09:10:00Z", source: "Phone", kind: "phone", uuid: "bbbb-2"),
            ])
            let batch = Self.batch(samples: [
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch", uuid: "bbbb-2"),
                Self.sample("steps", 10, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch", uuid: "aaaa-1"),
            ])
            let (token, answer) = try await Self.storedThenSent(http, "moved-back@example.com", stored, batch)
            #expect(Self.counts(answer)["updated"] == 1 && Self.counts(answer)["duplicates"] == 1, "\(answer.text)")
            #expect(try await Self.storedItems(harness) == ["aaaa-1 10.0"])
            let days = try await Self.days(http, token, "steps", position: answer.string("position"))
            #expect(days.first?["value"] as? Double == 10, "\(days)")
        }
    }

    /// Random batches from a fixed seed, of the kinds a phone can send (one content under two
    /// uuids, an item edited and deleted in one batch, an item or a content twice in a batch),
    /// through the real projector and the table's unique indexes: each is stored (no 500), and
    /// sent again it counts only duplicates.
    @Test func randomBatchesAreStoredAndAReSentOneAddsNothing() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let token = try #require(try await http.register("random-batches@example.com").string("access_token"))
            var seed: UInt64 = 0xBA7C4
            func next(_ count: Int) -> Int {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int((seed >> 33) % UInt64(count))
            }
            var changed = 0
            for round in 0..<60 {
                let samples = (0...next(5)).map { _ in
                    let hour = 6 + next(4), watch = next(2) == 0
                    return Self.sample("steps", Double(1 + next(2)), "2026-03-09T0\(hour):00:00Z", "2026-03-09T0\(hour):10:00Z",
                                       source: watch ? "Watch" : "Phone", kind: watch ? "watch" : "phone", uuid: [nil, "u1", "u2", "u3"][next(4)])
                }
                let deletions = next(3) == 0 ? ["u\(1 + next(3))"] : []
                let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: samples, deletions: deletions))
                #expect(answer.status == .ok, "round \(round): \(answer.text)")
                changed += (Self.counts(answer)["inserted"] ?? 0) + (Self.counts(answer)["updated"] ?? 0) + (Self.counts(answer)["deleted"] ?? 0) > 0 ? 1 : 0
                let again = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: samples, deletions: deletions))
                #expect(Self.counts(again)["inserted"] == 0 && Self.counts(again)["updated"] == 0 && Self.counts(again)["deleted"] == 0,
                        "round \(round): \(again.text)")
            }
            #expect(changed > 30)
        }
    }

    /// A large batch goes into the records table as plain INSERTs; one that edits stored items
    /// (here a hundred, beside a hundred new ones) finds their keys there and is written again
    /// as upserts: every edit lands, nothing is stored twice, and a re-send adds nothing.
    @Test func aLargeBatchOfEditsAndNewItemsStoresEveryOne() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: false) { harness, http in
            let token = try #require(try await http.register("large-edits@example.com").string("access_token"))
            func samples(_ range: Range<Int>, value: Double) -> [String] {
                range.map { minute in
                    let start = String(format: "2026-03-09T%02d:%02d:00Z", 6 + minute / 60, minute % 60)
                    let end = String(format: "2026-03-09T%02d:%02d:30Z", 6 + minute / 60, minute % 60)
                    return Self.sample("steps", value, start, end, source: "Watch", kind: "watch", uuid: "large-\(minute)")
                }
            }
            let first = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: samples(0..<100, value: 1)))
            #expect(Self.counts(first)["inserted"] == 100, "\(first.text)")
            let edited = Self.batch(samples: samples(0..<100, value: 2) + samples(100..<200, value: 3))
            let second = try await http.call(.post, "/api/v1/ingest/health", token: token, json: edited)
            #expect(second.status == .ok && Self.counts(second)["updated"] == 100 && Self.counts(second)["inserted"] == 100, "\(second.text)")
            let stored = try await Self.storedItems(harness)
            #expect(stored.count == 200)
            #expect(stored.prefix(100).allSatisfy { $0.hasSuffix(" 2.0") } && stored.suffix(100).allSatisfy { $0.hasSuffix(" 3.0") })
            let again = try await http.call(.post, "/api/v1/ingest/health", token: token, json: edited)
            #expect(Self.counts(again)["duplicates"] == 200, "\(again.text)")
        }
    }

    /// An exporter without uuids sending an item the phone stored with its uuid: the same item,
    /// a duplicate, and the phone's later deletion of it still removes it. Before, the exporter's
    /// copy counted as an update and cleared the uuid, and the deletion found nothing.
    @Test func anItemWithoutAUUIDIsTheStoredItemOfItsIdentityAndKeepsItsUUID() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { harness, http in
            let token = try #require(try await http.register("keeps-uuid@example.com").string("access_token"))
            let walk = Self.sample("steps", 1_000, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Apple Watch", kind: "watch", uuid: "aaaa-1")
            #expect(try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [walk])).status == .ok)
            let hae = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"start":"2026-03-09 09:00:00 +0100","end":"2026-03-09 09:10:00 +0100","qty":1000,"source":"Apple Watch"}]}]}}"#
            let exported = try await http.call(.post, "/api/v1/ingest/health-auto-export", token: token, json: hae)
            #expect(Self.counts(exported)["duplicates"] == 1 && Self.counts(exported)["updated"] == 0, "\(exported.text)")
            #expect(try await Self.storedItems(harness) == ["aaaa-1 1000.0"])
            let deletion = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(deletions: ["aaaa-1"]))
            #expect(Self.counts(deletion)["deleted"] == 1, "\(deletion.text)")
            #expect(try await Self.storedItems(harness).isEmpty)
        }
    }

    /// A phone re-sending what is stored is answered at once, even while another batch of the
    /// same user waits for the database (here for a lock held on the user's health stream):
    /// a batch with nothing new does not queue behind the user's other batches.
    @Test func aReSentBatchIsAnsweredWhileTheUsersNextBatchWaits() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: false) { harness, http in
            let token = try #require(try await http.register("resend@example.com").string("access_token"))
            let owner = try #require(UUID(uuidString: try await http.call(.get, "/api/v1/me", token: token).string("id") ?? ""))
            let stored = Self.batch(samples: (0..<50).map { minute in
                Self.sample("steps", 10, String(format: "2026-03-09T08:%02d:00Z", minute), String(format: "2026-03-09T08:%02d:30Z", minute),
                            source: "Watch", kind: "watch")
            })
            let next = Self.batch(samples: [Self.sample("steps", 99, "2026-03-09T10:00:00Z", "2026-03-09T10:01:00Z", source: "Watch", kind: "watch")])
            #expect(try await http.call(.post, "/api/v1/ingest/health", token: token, json: stored).status == .ok)

            let resent = Answer()
            let answeredWhileHeld = try await withThrowingTaskGroup(of: Bool.self) { group in
                // The user's health stream locked, as a slow append of theirs would hold it, for up to 10 s.
                group.addTask {
                    try await harness.client.withConnection { connection in
                        _ = try await connection.query("BEGIN", logger: TestDatabase.logger)
                        _ = try await connection.query(
                            "SELECT 1 FROM streams WHERE stream_id = \(HealthEvent.streamId(owner)) FOR UPDATE", logger: TestDatabase.logger)
                        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
                        while resent.value.withLock({ $0 == nil }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                        let answered = resent.value.withLock { $0 != nil }
                        _ = try await connection.query("ROLLBACK", logger: TestDatabase.logger)
                        return answered
                    }
                }
                // A new batch, which waits for the lock; then the stored one again.
                group.addTask {
                    try await Task.sleep(for: .milliseconds(300))
                    let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: next)
                    #expect(Self.counts(answer)["inserted"] == 1)
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(800))
                    let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: stored)
                    resent.value.withLock { $0 = answer }
                    return true
                }
                return try await group.reduce(true) { $0 && $1 }
            }
            #expect(answeredWhileHeld, "the re-sent batch waited for the user's other batch")
            let answer = try #require(resent.value.withLock { $0 })
            #expect(Self.counts(answer) == ["received": 50, "inserted": 0, "updated": 0, "duplicates": 50, "deleted": 0, "rejected": 0, "skipped": 0])
            #expect(try await harness.count("SELECT count(*) FROM rm_health_records") == 51)
        }
    }

    /// An answer one task writes and another waits for.
    final class Answer: Sendable {
        let value = Mutex<JSONResponse?>(nil)
    }

    @Test func aDeviceKeyWritesOnlyItsUsersDataAndReadsNothing() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let alice = try #require(try await http.register("alice@example.com").string("access_token"))
            let bob = try #require(try await http.register("bob@example.com").string("access_token"))
            let device = try await http.call(.post, "/api/v1/devices", token: alice, json: #"{"name":"Watch","kind":"watch"}"#)
            let key = try #require(device.string("api_key"))
            let body = Self.batch(samples: [Self.sample("steps", 1_234, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch")])
            // Health Auto Export's header name works too.
            let sent = try await http.call(.post, "/api/v1/ingest/health", headers: [.init("api-key")!: key], json: body)
            #expect(sent.status == .ok, "\(sent.text)")
            #expect(try await http.call(.get, "/api/v1/health/daily", headers: [.init("X-API-Key")!: key]).status == .forbidden)
            #expect(try await Self.days(http, alice, "steps", position: sent.string("position")).first?["value"] as? Double == 1_234)
            #expect(try await Self.days(http, bob, "steps", position: sent.string("position")).isEmpty)
            // Bob's identical batch is his own, not a duplicate of Alice's.
            let bobs = try await http.call(.post, "/api/v1/ingest/health", token: bob, json: body)
            #expect(Self.counts(bobs)["inserted"] == 1)
        }
    }

    @Test func theSameWalkFromHealthAutoExportAndTheNativeBatchIsStoredOnce() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("exporter@example.com").string("access_token"))
            let hae = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"start":"2026-03-09 09:00:00 +0100","end":"2026-03-09 09:10:00 +0100","qty":1000,"source":"Apple Watch"}]}]}}"#
            let first = try await http.call(.post, "/api/v1/ingest/health-auto-export", token: token, json: hae)
            #expect(Self.counts(first)["inserted"] == 1, "\(first.text)")
            let native = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                Self.sample("steps", 1_000, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Apple Watch", kind: "watch"),
            ]))
            #expect(Self.counts(native)["duplicates"] == 1)
            #expect(Self.counts(native)["inserted"] == 0)
            // Today's running total, re-sent as it grows: one figure, the latest.
            var position: String?
            for total in [1_200, 4_800, 9_100] {
                let resent = try await http.call(.post, "/api/v1/ingest/health-auto-export", token: token,
                    json: #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2026-03-10 00:00:00 +0100","qty":\#(total),"source":"iPhone"}]}]}}"#)
                position = resent.string("position")
            }
            let steps = try await Self.days(http, token, "steps", position: position)
            #expect(steps.map { $0["value"] as? Double } == [1_000, 9_100])
            #expect(steps.map { $0["decided_by"] as? String } == ["samples", "summary"])
            // Unknown metrics are counted, never refused.
            let unknown = try await http.call(.post, "/api/v1/ingest/health-auto-export", token: token,
                json: #"{"data":{"metrics":[{"name":"mindful_minutes","units":"min","data":[{"date":"2026-03-09 07:00:00 +0100","qty":10}]}]}}"#)
            #expect(unknown.status == .ok)
            #expect(Self.counts(unknown)["skipped"] == 1)
        }
    }

    @Test func coachFitAndPulseWorkByChangingOnlyTheirBaseURL() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("coachfit@example.com").string("access_token"))
            let steps = try await http.call(.post, "/api/v1/ingest/steps", token: token,
                json: #"{"client_id":"phone-1","steps":[{"date":"2026-03-08","total_steps":7654,"source_devices":["iPhone"]}]}"#)
            #expect(Self.counts(steps)["inserted"] == 1, "\(steps.text)")
            let workouts = try await http.call(.post, "/api/v1/ingest/workouts", token: token, json: #"""
                {"workouts":[{"workout_type":"running","start_time":"2026-03-08T07:00:00Z","end_time":"2026-03-08T07:30:00Z","duration_seconds":1800,
                 "calories_active":300,"distance_meters":5000,"avg_heart_rate":150,"source_device":"Apple Watch"}]}
                """#)
            #expect(Self.counts(workouts)["inserted"] == 1)
            let profile = try await http.call(.post, "/api/v1/ingest/profile", token: token,
                json: #"{"metrics":[{"metric":"weight","value":72.4,"unit":"kg","measured_at":"2026-03-08T06:00:00Z"},{"metric":"height","value":180,"unit":"cm","measured_at":"2026-03-08T06:00:00Z"}]}"#)
            #expect(Self.counts(profile)["inserted"] == 1)
            #expect(Self.counts(profile)["skipped"] == 1)
            let pulse = try await http.call(.post, "/api/v1/ingest/pulse", token: token, json: #"""
                {"totalSleep":7.5,"deep":1.2,"rem":2.0,"core":4.3,"awake":0.5,"inBedStart":"2026-03-08T22:00:00Z","sleepEnd":"2026-03-09T06:00:00Z","source":"Oura Ring"}
                """#)
            #expect(Self.counts(pulse)["inserted"] == 5, "\(pulse.text)")
            let position = try #require(pulse.string("position"))
            let daily = try await Self.days(http, token, "steps", position: position)
            #expect(daily.first?["value"] as? Double == 7_654)
            #expect(daily.first?["decided_by"] as? String == "summary")
            let night = try await http.call(.get, "/api/v1/health/sleep/2026-03-09?min_position=\(position)", token: token)
            #expect(night.object["asleep_minutes"] as? Int == 450)
            #expect(night.object["deep_minutes"] as? Int == 72)
            #expect(night.string("source") == "Oura Ring")
        }
    }

    /// An exporter's figure that is there but no number is that item's error (issue 24): it was
    /// read as 0 (a Pulse night with `"core": false` stored without core sleep) or dropped.
    @Test func anExportersFigureThatIsNoNumberRejectsItsItem() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("figures@example.com").string("access_token"))
            let pulse = try await http.call(.post, "/api/v1/ingest/pulse", token: token, json: #"""
                {"totalSleep":7.5,"deep":"lots","rem":2.0,"core":false,"inBedStart":"2026-03-08T22:00:00Z","sleepEnd":"2026-03-09T06:00:00Z"}
                """#)
            #expect(Self.counts(pulse) == ["received": 1, "inserted": 0, "updated": 0, "duplicates": 0, "deleted": 0, "rejected": 1, "skipped": 0],
                    "\(pulse.text)")
            #expect(Set((pulse.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }) == ["deep", "core"])
            let sleep = try await http.call(.post, "/api/v1/ingest/sleep", token: token, json: #"""
                {"sleep_records":[{"date":"2026-03-09","sleep_start":"2026-03-08T23:00:00Z","total_sleep_minutes":420,"awake_minutes":[5]},
                                  {"date":"2026-03-10","sleep_start":"2026-03-09T23:00:00Z","total_sleep_minutes":400}]}
                """#)
            #expect(Self.counts(sleep)["rejected"] == 1, "\(sleep.text)")
            #expect((sleep.object["errors"] as? [[String: Any]])?.first?["field"] as? String == "sleep_records[0].awake_minutes")
            let workouts = try await http.call(.post, "/api/v1/ingest/workouts", token: token, json: #"""
                {"workouts":[{"workout_type":"running","start_time":"2026-03-08T07:00:00Z","duration_seconds":1800,"calories_active":"many"}]}
                """#)
            #expect(Self.counts(workouts)["rejected"] == 1, "\(workouts.text)")
            #expect((workouts.object["errors"] as? [[String: Any]])?.first?["field"] as? String == "workouts[0].calories_active")
            let night = try await http.call(.get, "/api/v1/health/sleep/2026-03-09?min_position=\(try #require(workouts.string("position")))", token: token)
            #expect(night.status == .notFound)
        }
    }

    /// A range with only `from` ends `defaultDays` after it, as one with only `to` starts that
    /// long before it (issue 24: `to` was the logical today, and a `from` over 400 days back was a 422).
    @Test func aRangeWithOnlyFromEndsItsDefaultLengthAfterIt() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("from@example.com").string("access_token"))
            let sent = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                Self.sample("steps", 500, "2026-03-09T10:00:00Z", "2026-03-09T11:00:00Z", source: "Watch", kind: "watch"),
                Self.sample("steps", 700, "2025-01-10T10:00:00Z", "2025-01-10T11:00:00Z", source: "Watch", kind: "watch"),
            ]))
            let position = try #require(sent.string("position"))
            let old = try await http.call(.get, "/api/v1/health/daily?from=2025-01-01&metrics=steps&min_position=\(position)", token: token)
            #expect(old.status == .ok, "\(old.text)")
            #expect((old.object["days"] as? [[String: Any]])?.map { $0["date"] as? String } == ["2025-01-10"])
            // 30 days from 2026-02-08 is 2026-03-09 (included); from 2026-02-07, 2026-03-08 is its last.
            for (from, found) in [("2026-02-08", 1), ("2026-02-07", 0)] {
                let days = try await http.call(.get, "/api/v1/health/daily?from=\(from)&metrics=steps&min_position=\(position)", token: token)
                #expect((days.object["days"] as? [Any])?.count == found, "from \(from)")
            }
            let heatmap = try await http.call(.get, "/api/v1/health/heatmap?metric=steps&from=2020-01-01&min_position=\(position)", token: token)
            #expect(heatmap.status == .ok, "\(heatmap.text)")
            let cells = heatmap.object["days"] as? [[String: Any]] ?? []
            #expect(cells.count == 365)
            #expect(cells.last?["date"] as? String == "2020-12-30")
            for path in ["sleep", "workouts"] {
                #expect(try await http.call(.get, "/api/v1/health/\(path)?from=2000-01-01", token: token).status == .ok, "\(path)")
            }
            // metrics: names and commas, spaces around a name allowed, as the document's pattern says.
            for (query, status) in [("%20steps%20,%20distance%20", 200), ("", 200), ("steps,,distance", 422), ("steps%09", 422), ("steps,", 422)] {
                let answer = try await http.call(.get, "/api/v1/health/daily?metrics=\(query)", token: token)
                #expect(answer.status.code == status, "metrics=\(query): \(answer.text)")
            }
        }
    }

    @Test func heatmapLevelsAndTrendsAreTheUsersOwn() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("trends@example.com").string("access_token"))
            // Eight days, 2026-03-02 to 03-09, with 1,000 to 8,000 steps; nothing on 03-01 and 03-10.
            let samples = (2...9).map { day in
                Self.sample("steps", Double((day - 1) * 1_000), "2026-03-0\(day)T10:00:00Z", "2026-03-0\(day)T11:00:00Z", source: "Watch", kind: "watch")
            }
            let sent = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: samples))
            let position = try #require(sent.string("position"))
            let heatmap = try await http.call(.get, "/api/v1/health/heatmap?metric=steps&from=2026-03-01&to=2026-03-10&min_position=\(position)", token: token)
            #expect(heatmap.status == .ok)
            let cells = heatmap.object["days"] as? [[String: Any]] ?? []
            #expect(cells.count == 10)
            #expect(cells.map { $0["level"] as? Int ?? -1 } == [0, 1, 1, 2, 2, 3, 3, 4, 4, 0])
            #expect(heatmap.string("unit") == "count")
            // The last 7 days (03-04 to 03-10) against the 7 before (02-25 to 03-03).
            let trend = try await http.call(.get, "/api/v1/health/trends?metric=steps&days=7&min_position=\(position)", token: token)
            #expect(trend.string("from") == "2026-03-04")
            #expect(trend.object["mean"] as? Double == 5_500)
            #expect(trend.object["previous_mean"] as? Double == 1_500)
            #expect(trend.object["change"] as? Double == 4_000)
            #expect(trend.object["baseline_days"] as? Int == 2)
            #expect(try await http.call(.get, "/api/v1/health/trends?metric=steps&days=14", token: token).status.code == 422)
            let latest = try await http.call(.get, "/api/v1/health/latest", token: token)
            let steps = (latest.object["items"] as? [[String: Any]])?.first { $0["metric"] as? String == "steps" }
            #expect(steps?["value"] as? Double == 8_000)
            #expect(steps?["end"] as? String == "2026-03-09T11:00:00Z")
        }
    }

    @Test func aReadWaitingForAPositionTheModelsHaveNotReachedAnswersNotYet() async throws {
        // No async projectors run here: the position is never reached.
        try await AppHarness.with(now: Self.now) { _, http in
            let token = try #require(try await http.register("impatient@example.com").string("access_token"))
            let sent = try await http.call(.post, "/api/v1/ingest/health", token: token, json: Self.batch(samples: [
                Self.sample("steps", 1, "2026-03-09T08:00:00Z", "2026-03-09T08:10:00Z", source: "Watch", kind: "watch"),
            ]))
            let position = try #require(sent.string("position"))
            let answer = try await http.call(.get, "/api/v1/health/daily?min_position=\(position)", token: token)
            #expect(answer.status == .accepted)
            #expect(answer.headers[.retryAfter] == "1")
            #expect(answer.string("min_position") == position)
            #expect(try await http.call(.get, "/api/v1/health/daily?min_position=soon", token: token).status.code == 422)
        }
    }
}
