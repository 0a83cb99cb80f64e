import API
import Foundation
import HummingbirdTesting
import Testing
import TestSupport

/// The recovery score (`recovery-v1`) through HTTP, from synthetic samples: the worked examples,
/// calibrating and unscorable users, late data, check-ins, languages, and the label catalogue.
/// Users live in UTC; "now" is 2026-06-01 10:00 UTC, so the logical today is 2026-06-01.
@Suite struct RecoveryRoutesTests {
    static let now = Date(timeIntervalSince1970: 1_780_308_000)  // 2026-06-01T10:00:00Z
    static let today = "2026-06-01"

    /// The date `offset` days before today, as YYYY-MM-DD.
    static func date(_ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: now.addingTimeInterval(Double(-offset) * 86_400))
    }

    static func sample(_ metric: String, _ value: Double, on day: String, uuid: String? = nil) -> String {
        let id = uuid.map { #","uuid":"\#($0)""# } ?? ""
        return #"{"metric":"\#(metric)","value":\#(value),"start":"\#(day)T06:00:00Z","end":"\#(day)T06:00:00Z","source":{"name":"Watch","kind":"watch"}\#(id)}"#
    }

    /// A night of `minutes` asleep ending on `day` at 07:00.
    static func night(ending day: String, previous: String, minutes: Int) -> String {
        let start = 7 * 60 - minutes  // minutes after midnight; negative is the evening before
        let startText = start >= 0
            ? "\(day)T\(twoDigits(start / 60)):\(twoDigits(start % 60)):00Z"
            : "\(previous)T\(twoDigits((24 * 60 + start) / 60)):\(twoDigits((24 * 60 + start) % 60)):00Z"
        return #"{"stage":"core","start":"\#(startText)","end":"\#(day)T07:00:00Z","source":{"name":"Watch","kind":"watch"}}"#
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Days `offsets` of history: HRV alternating 40 and 90 ms (its ln mean is ln 60), resting
    /// heart rate alternating 50 and 60, nights alternating 420 and 480 minutes.
    static func history(_ offsets: ClosedRange<Int>, sleep: Bool = true, hrv: Bool = true, restingHeartRate: Bool = true) -> (samples: [String], nights: [String]) {
        var samples: [String] = [], nights: [String] = []
        for offset in offsets {
            if hrv { samples.append(sample("hrv_sdnn", offset % 2 == 0 ? 40 : 90, on: date(offset))) }
            if restingHeartRate { samples.append(sample("resting_heart_rate", offset % 2 == 0 ? 50 : 60, on: date(offset))) }
            if sleep { nights.append(night(ending: date(offset), previous: date(offset + 1), minutes: offset % 2 == 0 ? 420 : 480)) }
        }
        return (samples, nights)
    }

    static func ingest(_ http: some TestClientProtocol, _ token: String, samples: [String] = [], nights: [String] = [],
                       deletions: [String] = []) async throws -> String {
        let quoted = deletions.map { "\"\($0)\"" }.joined(separator: ",")
        let body = #"{"samples":[\#(samples.joined(separator: ","))],"sleep":[\#(nights.joined(separator: ","))],"deletions":[\#(quoted)]}"#
        let answer = try await http.call(.post, "/api/v1/ingest/health", token: token, json: body)
        #expect(answer.status == .ok, "\(answer.text)")
        #expect(answer.object["rejected"] as? Int == 0, "\(answer.text)")
        return try #require(answer.string("position"))
    }

    static func recovery(_ http: some TestClientProtocol, _ token: String, _ query: String, position: String) async throws -> JSONResponse {
        let answer = try await http.call(.get, "/api/v1/health/recovery?\(query)&min_position=\(position)", token: token)
        #expect(answer.status == .ok, "\(answer.text)")
        return answer
    }

    static func component(_ answer: JSONResponse, _ key: String) -> [String: Any] {
        (answer.object["components"] as? [[String: Any]])?.first { $0["key"] as? String == key } ?? [:]
    }

    @Test func theWorkedExamplesThroughHTTP() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("recovery@example.com", timezone: "UTC").string("access_token"))
            var (samples, nights) = Self.history(1...30)
            // Today at every baseline (ln 60 ms is the mean of ln 40 and ln 90) with 8 hours of sleep.
            samples += [Self.sample("hrv_sdnn", 60, on: Self.today, uuid: "hrv-today"), Self.sample("resting_heart_rate", 55, on: Self.today)]
            nights.append(Self.night(ending: Self.today, previous: Self.date(1), minutes: 480))
            let position = try await Self.ingest(http, token, samples: samples, nights: nights)

            let score = try await Self.recovery(http, token, "date=\(Self.today)", position: position)
            #expect(score.object["score"] as? Double == 82.0, "\(score.text)")
            #expect(score.string("status") == "good")
            #expect(score.string("color_token") == "ds.semantic.positive")
            #expect(score.string("formula_version") == "recovery-v1")
            #expect((score.object["methodology"] as? [String: Any])?["class"] as? String == "heuristic_personalized")
            let hrv = Self.component(score, "hrv")
            #expect(hrv["baseline_days"] as? Int == 30)
            #expect(hrv["available"] as? Bool == true)
            #expect(abs(hrv["z"] as? Double ?? 1) < 1e-3)
            #expect(hrv["unit"] as? String == "ln(ms)")
            let rhr = Self.component(score, "resting_heart_rate")
            #expect(rhr["baseline_mean"] as? Double == 55)
            #expect(rhr["value"] as? Double == 55)
            #expect(Self.component(score, "sleep")["score"] as? Double == 100)
            // Without asking, today is the date; the same answer.
            #expect(try await Self.recovery(http, token, "lang=en", position: position).object["score"] as? Double == 82.0)

            // The same day without HRV: the weights renormalise over sleep and resting heart rate.
            let deleted = try await Self.ingest(http, token, deletions: ["hrv-today"])
            let without = try await Self.recovery(http, token, "date=\(Self.today)", position: deleted)
            #expect(without.object["score"] as? Double == 88.5, "\(without.text)")
            let gone = Self.component(without, "hrv")
            #expect(gone["available"] as? Bool == false)
            #expect(gone["reason"] as? String == "no_data")
            #expect(gone["weight_used"] as? Double == 0)
            #expect(gone["value"] is NSNull)
        }
    }

    @Test func aNewUserIsCalibratingOnDayFiveAndOnlySleepIsUnscorable() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let newcomer = try #require(try await http.register("newcomer@example.com", timezone: "UTC").string("access_token"))
            let (samples, nights) = Self.history(0...4)
            let position = try await Self.ingest(http, newcomer, samples: samples, nights: nights)
            let calibrating = try await Self.recovery(http, newcomer, "date=\(Self.today)", position: position)
            #expect(calibrating.string("status") == "calibrating", "\(calibrating.text)")
            #expect(calibrating.object["score"] is NSNull)
            #expect(calibrating.object["days_until_ready"] as? Int == 3)
            #expect(calibrating.string("color_token") == "ds.semantic.neutral")
            #expect(Self.component(calibrating, "hrv")["reason"] as? String == "calibrating")
            #expect(Self.component(calibrating, "hrv")["baseline_days"] as? Int == 4)

            let sleeper = try #require(try await http.register("sleeper@example.com", timezone: "UTC").string("access_token"))
            let onlySleep = Self.history(0...30, hrv: false, restingHeartRate: false)
            let slept = try await Self.ingest(http, sleeper, nights: onlySleep.nights)
            let unscorable = try await Self.recovery(http, sleeper, "date=\(Self.today)", position: slept)
            #expect(unscorable.string("status") == "unscorable", "\(unscorable.text)")
            #expect(unscorable.object["score"] is NSNull)
            #expect(unscorable.object["days_until_ready"] == nil)
            #expect(Self.component(unscorable, "sleep")["available"] as? Bool == true)
        }
    }

    @Test func aLateHRVSampleRescoresItsDateAndMovesLaterBaselines() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("late@example.com", timezone: "UTC").string("access_token"))
            var (samples, nights) = Self.history(2...31)
            // Yesterday and today: sleep and resting heart rate, no HRV yet.
            (samples, nights) = (samples + Self.history(0...1, hrv: false).samples, nights + Self.history(0...1, hrv: false).nights)
            let first = try await Self.ingest(http, token, samples: samples, nights: nights)
            let yesterday = try await Self.recovery(http, token, "date=\(Self.date(1))", position: first)
            let todayBefore = try await Self.recovery(http, token, "date=\(Self.today)", position: first)
            #expect(Self.component(yesterday, "hrv")["available"] as? Bool == false)
            #expect(Self.component(todayBefore, "hrv")["baseline_days"] as? Int == 30)

            // The watch syncs yesterday's HRV late: a low one.
            let late = try await Self.ingest(http, token, samples: [Self.sample("hrv_sdnn", 20, on: Self.date(1))])
            let rescored = try await Self.recovery(http, token, "date=\(Self.date(1))", position: late)
            #expect(Self.component(rescored, "hrv")["available"] as? Bool == true, "\(rescored.text)")
            #expect((rescored.object["score"] as? Double ?? 100) < (yesterday.object["score"] as? Double ?? 0))
            let todayAfter = try await Self.recovery(http, token, "date=\(Self.today)", position: late)
            #expect(Self.component(todayAfter, "hrv")["baseline_days"] as? Int == 31)
            #expect(Self.component(todayAfter, "hrv")["baseline_mean"] as? Double != Self.component(todayBefore, "hrv")["baseline_mean"] as? Double)

            // A series for charts: every date, the ones without data as unscorable.
            let series = try await Self.recovery(http, token, "from=\(Self.date(40))&to=\(Self.today)", position: late)
            let items = series.object["items"] as? [[String: Any]] ?? []
            #expect(items.count == 41)
            #expect(items.first?["status"] as? String == "unscorable")
            #expect(items.last?["date"] as? String == Self.today)
            #expect(items.last?["score"] as? Double == todayAfter.object["score"] as? Double)
            #expect(series.string("as_of_position") != nil)
        }
    }

    @Test func aCheckInIsShownBesideTheScoreAndChangesNoNumber() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("checkin@example.com", timezone: "UTC").string("access_token"))
            let (samples, nights) = Self.history(0...30)
            let position = try await Self.ingest(http, token, samples: samples, nights: nights)
            let before = try await Self.recovery(http, token, "date=\(Self.today)", position: position)
            #expect(before.object["check_in"] is NSNull)

            let checkIn = try await http.call(.put, "/api/v1/health/checkins/\(Self.today)", token: token, json: #"{"feeling":2,"note":"slept badly"}"#)
            #expect(checkIn.status == .ok, "\(checkIn.text)")
            #expect(checkIn.object["feeling_label"] as? String == "Bad")
            let after = try await http.call(.get, "/api/v1/health/recovery?date=\(Self.today)", token: token)
            #expect((after.object["check_in"] as? [String: Any])?["feeling"] as? Int == 2)
            #expect((after.object["check_in"] as? [String: Any])?["note"] as? String == "slept badly")
            #expect(after.object["score"] as? Double == before.object["score"] as? Double)
            #expect(after.object["components"] as? NSArray == before.object["components"] as? NSArray)

            for (body, field) in [(#"{"feeling":6}"#, "feeling"), (#"{"feeling":0}"#, "feeling")] {
                let refused = try await http.call(.put, "/api/v1/health/checkins/\(Self.today)", token: token, json: body)
                #expect(refused.status == .unprocessableContent)
                #expect(refused.fieldErrors.contains(field), "\(refused.text)")
            }
            let future = try await http.call(.put, "/api/v1/health/checkins/2026-06-05", token: token, json: #"{"feeling":3}"#)
            #expect(future.status == .unprocessableContent)
            // A date whose baseline would reach into year 0 (which PostgreSQL does not have) is refused, not a 500.
            for path in ["/api/v1/health/recovery?date=0001-01-15", "/api/v1/health/recovery?from=0001-01-01&to=0001-01-15",
                         "/api/v1/health/briefing?date=0001-01-15"] {
                let early = try await http.call(.get, path, token: token)
                #expect(early.status == .unprocessableContent, "\(path): \(early.text)")
            }
        }
    }

    @Test func wordsComeInTheAskedLanguage() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("words@example.com", timezone: "UTC").string("access_token"))
            let (samples, nights) = Self.history(0...30)
            let position = try await Self.ingest(http, token, samples: samples, nights: nights)
            let russian = try await Self.recovery(http, token, "date=\(Self.today)&lang=ru", position: position)
            #expect(["Хорошо", "Средне", "Плохо"].contains(russian.string("status_label") ?? ""), "\(russian.text)")
            #expect((russian.object["methodology"] as? [String: Any])?["label"] as? String == "Эвристика, настроенная по вашему базовому уровню")
            #expect(Self.component(russian, "sleep")["label"] as? String == "Сон")
            let serbian = try await http.call(.get, "/api/v1/health/recovery?date=\(Self.today)", token: token,
                                              headers: [.acceptLanguage: "sr-Latn-RS, en;q=0.5"])
            #expect(Self.component(serbian, "sleep")["label"] as? String == "San")

            let english = try await http.call(.get, "/api/v1/labels?lang=en")
            #expect(english.status == .ok)
            let englishKeys = Set((english.object["labels"] as? [String: String] ?? [:]).keys)
            #expect(englishKeys.contains("recovery.status.good"))
            for lang in ["ru", "sr"] {
                let labels = try await http.call(.get, "/api/v1/labels?lang=\(lang)")
                #expect(labels.string("lang") == lang)
                #expect(Set((labels.object["labels"] as? [String: String] ?? [:]).keys) == englishKeys)
            }
        }
    }

    @Test func theBriefingIsReadyToRenderInEachLanguage() async throws {
        try await AppHarness.with(now: Self.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("briefing@example.com", timezone: "UTC").string("access_token"))
            var (samples, nights) = Self.history(0...30)
            for offset in 1...31 {
                samples.append(#"{"metric":"steps","value":\#(offset == 1 ? 12_000 : 8_000),"start":"\#(Self.date(offset))T09:00:00Z","end":"\#(Self.date(offset))T10:00:00Z","source":{"name":"Watch","kind":"watch"}}"#)
            }
            samples.append(Self.sample("body_mass", 71.5, on: Self.date(2)))
            let position = try await Self.ingest(http, token, samples: samples, nights: nights)
            _ = try await http.call(.put, "/api/v1/health/checkins/\(Self.today)", token: token, json: #"{"feeling":4}"#)

            var summaries: [String: String] = [:]
            for lang in ["en", "ru", "sr"] {
                let briefing = try await http.call(.get, "/api/v1/health/briefing?lang=\(lang)&min_position=\(position)", token: token)
                #expect(briefing.status == .ok, "\(briefing.text)")
                #expect(briefing.string("date") == Self.today)
                #expect(briefing.string("lang") == lang)
                let sections = briefing.object["sections"] as? [[String: Any]] ?? []
                #expect(sections.compactMap { $0["key"] as? String } == ["recovery", "sleep", "activity", "cardio", "body"], "\(briefing.text)")
                let blocks = briefing.object["blocks"] as? [String: Any] ?? [:]
                for key in ["sleep", "yesterday", "recovery", "recommendation"] {
                    let text = blocks[key] as? String ?? ""
                    #expect(!text.isEmpty && !text.contains("{"), "\(lang) \(key): \(text)")
                }
                let steps = (sections.first { $0["key"] as? String == "activity" }?["deltas"] as? [[String: Any]])?.first
                #expect(steps?["value"] as? Double == 12_000)
                #expect(steps?["baseline"] as? Double == 8_000)
                #expect(steps?["change_percent"] as? Double == 50)
                #expect(steps?["good"] as? Bool == true)
                #expect((briefing.object["check_in"] as? [String: Any])?["feeling"] as? Int == 4)
                let freshness = briefing.object["freshness"] as? [String: Any] ?? [:]
                #expect(freshness["sleep"] as? String == "\(Self.today)T07:00:00Z")
                #expect(freshness["recovery"] as? String == "\(Self.today)T06:00:00Z")
                #expect(freshness["body"] is String)
                summaries[lang] = blocks["yesterday"] as? String
            }
            #expect(summaries["en"] == "Yesterday: 12,000 steps. That is 50% above your usual.")
            #expect(summaries["ru"] == "Вчера: шаги — 12\u{00A0}000. Это на 50% больше обычного.")
            #expect(summaries["sr"] == "Juče: koraci — 12.000. To je 50% više nego obično.")
            // Without ?lang=, Accept-Language decides.
            let serbian = try await http.call(.get, "/api/v1/health/briefing", token: token, headers: [.acceptLanguage: "sr"])
            #expect(serbian.string("lang") == "sr")
        }
    }
}
