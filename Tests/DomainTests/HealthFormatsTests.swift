import Domain
import Foundation
import Testing

/// The format decoders: each payload in the exact shape its client sends (synthetic values).
@Suite struct HealthFormatsTests {
    static let belgrade = TimeZone(identifier: "Europe/Belgrade") ?? .gmt
    static let now = Date(timeIntervalSince1970: 1_705_500_000)  // 2024-01-17T14:00:00Z

    static func check(_ intake: HealthIntake) -> HealthIntakeRules.Checked {
        HealthIntakeRules.check(intake, timeZone: belgrade, now: now)
    }

    /// A source's name is 1 to 200 characters (what a person sees, not bytes), and a NUL in a
    /// kept string is the item's error: a name of 200 characters of several bytes each is kept,
    /// one of 201 is not.
    @Test func aSourceNameIsCountedInCharactersAndANULIsRefused() throws {
        func sample(_ name: String) -> Data {
            let escaped = name.replacingOccurrences(of: "\u{0}", with: "\\u0000")
            return Data(#"{"samples":[{"metric":"steps","value":5,"start":"2024-01-15T07:00:00Z","end":"2024-01-15T07:01:00Z","source":{"name":"\#(escaped)","kind":"watch"}}]}"#.utf8)
        }
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"  // one character, 18 bytes
        for (name, kept) in [(String(repeating: "é", count: 200), true), (String(repeating: "é", count: 201), false),
                             (String(repeating: family, count: 200), true), (String(repeating: family, count: 201), false),
                             (String(repeating: "a", count: 200), true), (String(repeating: "a", count: 201), false),
                             ("Watch\u{0}", false), ("", false)] {
            let intake = try NativeHealthFormat.decode(sample(name))
            #expect(intake.samples.count == (kept ? 1 : 0) && intake.rejected == (kept ? 0 : 1), "\(name.utf8.count) bytes")
        }
    }

    @Test func healthAutoExportDatesInEveryForm() {
        #expect(HealthAutoExportDate.instant("2024-01-15 07:00:00 -0500")?.timeIntervalSince1970 == 1_705_320_000)
        #expect(HealthAutoExportDate.instant("2024-01-15 7:00:00 AM -0500")?.timeIntervalSince1970 == 1_705_320_000)
        #expect(HealthAutoExportDate.instant("2024-01-15 7:00:00\u{202F}AM -0500")?.timeIntervalSince1970 == 1_705_320_000)
        #expect(HealthAutoExportDate.instant("2024-01-15 12:30:00 AM +0100")?.timeIntervalSince1970 == 1_705_275_000)
        #expect(HealthAutoExportDate.instant("2024-01-15 12:30:00 PM +0100")?.timeIntervalSince1970 == 1_705_318_200)
        #expect(HealthAutoExportDate.instant("2024-01-15 19:00:00 +0530")?.timeIntervalSince1970 == 1_705_325_400)
        #expect(HealthAutoExportDate.date("2024-01-15")?.description == "2024-01-15")
        // The canonical form has its own fast path; it must agree with the general one.
        #expect(HealthAutoExportDate.instant("2024-01-15 07:00:00 +0000")?.timeIntervalSince1970 == 1_705_302_000)
        #expect(HealthAutoExportDate.instant("1999-12-31 23:59:60 -0130")?.timeIntervalSince1970 == 946_690_199)
        #expect(HealthAutoExportDate.instant("2024-02-29 00:00:00 +1400")?.timeIntervalSince1970 == 1_709_114_400)
        for bad in ["2024-01-15", "2024-01-15 13:00:00 PM -0500", "2024-01-15 07:00 -05", "yesterday", "2024-02-30 07:00:00 +0000",
                    "2024-01-15 24:00:00 +0000", "2024-01-15 07:60:00 +0000", "2024-01-15 07:00:00 +2400", "2024-13-01 07:00:00 +0000",
                    "2024-01-15 07:00:00 *0100", "2024-01-1a 07:00:00 +0000", "0000-01-15 07:00:00 +0000"] {
            #expect(HealthAutoExportDate.instant(bad) == nil, "\(bad)")
        }
    }

    /// The canonical form's fast path against the general one (the same text with two spaces
    /// before the time goes the general way): every field's edges, leap days, both signs.
    @Test func theCanonicalDateFastPathAgreesWithTheGeneralOne() {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var compared = 0
        for year in [2000, 2023, 2024, 2100] {
            for (month, day) in [(1, 1), (2, 28), (2, 29), (2, 30), (4, 30), (4, 31), (12, 31), (13, 1), (0, 10), (6, 0)] {
                for (hour, minute, second) in [(0, 0, 0), (23, 59, 59), (12, 30, 60), (24, 0, 0), (7, 60, 0), (7, 0, 61)] {
                    for offset in ["+0000", "-0500", "+0530", "+1400", "-1200", "+2400", "+0160", "-0059"] {
                        let date = "\(year)-\(two(month))-\(two(day))", time = "\(two(hour)):\(two(minute)):\(two(second))"
                        let fast = HealthAutoExportDate.instant("\(date) \(time) \(offset)")
                        let general = HealthAutoExportDate.instant("\(date)  \(time) \(offset)")
                        #expect(fast == general, "\(date) \(time) \(offset)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == 1_920)
        #expect(HealthAutoExportDate.instant("2024-02-29 12:30:60 +0530") != nil)
    }

    static let metricsPayload = #"""
    {"data": {"metrics": [
      {"name": "step_count", "units": "count", "data": [
        {"date": "2024-01-15 00:00:00 -0500", "qty": 5234, "source": "iPhone|Jane’s Apple Watch"},
        {"start": "2024-01-15 08:00:00 -0500", "end": "2024-01-15 08:10:00 -0500", "qty": 812, "source": "Jane’s Apple Watch"}]},
      {"name": "heart_rate", "units": "count/min", "data": [
        {"date": "2024-01-15 7:00:00 AM -0500", "Min": 58, "Avg": 64.5, "Max": 71, "source": "Jane’s Apple Watch"}]},
      {"name": "blood_pressure", "units": "mmHg", "data": [{"date": "2024-01-15 07:05:00 -0500", "systolic": 120, "diastolic": 80}]},
      {"name": "mindful_minutes", "units": "min", "data": [{"date": "2024-01-15 07:05:00 -0500", "qty": 10}, {"date": "2024-01-16 07:05:00 -0500", "qty": 5}]},
      {"name": "active_energy", "units": "kJ", "data": [{"start": "2024-01-15 08:00:00 -0500", "end": "2024-01-15 09:00:00 -0500", "qty": 418.4, "source": "Jane’s Apple Watch"}]},
      {"name": "walking_running_distance", "units": "mi", "data": [{"start": "2024-01-15 08:00:00 -0500", "end": "2024-01-15 09:00:00 -0500", "qty": 1.5}]},
      {"name": "weight_body_mass", "units": "lb", "data": [{"date": "2024-01-15 06:30:00 -0500", "qty": 165.3, "source": "Smart Scale"}]},
      {"name": "blood_oxygen_saturation", "units": "%", "data": [{"date": "2024-01-15 03:00:00 -0500", "qty": 97}]},
      {"name": "resting_heart_rate", "units": "count/min", "data": [{"date": "2024-01-15 00:00:00 -0500", "qty": "52"}]},
      {"name": "heart_rate_variability", "units": "ms", "data": [{"date": "2024-01-15 03:00:00 -0500", "qty": 48.2}]},
      {"name": "respiratory_rate", "units": "count/min", "data": [{"date": "2024-01-15 03:00:00 -0500", "qty": 14.5}]},
      {"name": "body_fat_percentage", "units": "%", "data": [{"date": "2024-01-15 06:30:00 -0500", "qty": 21.4}]},
      {"name": "vo2max", "units": "ml/(kg·min)", "data": [{"date": "2024-01-15 09:00:00 -0500", "qty": 41.2}]},
      {"name": "step_count", "units": "count", "data": [{"date": "15/01/2024", "qty": 1}]}
    ]}}
    """#

    @Test func healthAutoExportMetricsInTheAppsShapes() throws {
        let intake = try HealthAutoExportFormat.decode(Data(Self.metricsPayload.utf8))
        // Blood pressure and an unknown metric's two points are skipped; a date in another form is an error.
        #expect(intake.skipped == 3)
        #expect(intake.errors.map(\.field) == ["data.metrics[13].data[0].date"])
        let checked = Self.check(intake)
        #expect(checked.errors.count == 1)
        let byName = Dictionary(grouping: checked.records, by: \.name)
        let steps = try #require(byName["steps"])
        #expect(steps.map(\.series) == [.summary, .sample])
        #expect(steps.first?.source.name == "iPhone")
        #expect(steps.last?.source.kind == .watch)
        #expect(byName["heart_rate"]?.first?.value == 64.5)
        #expect(byName["active_energy"]?.first?.value.map { ($0 * 1_000).rounded() / 1_000 } == 100)
        #expect(byName["distance"]?.first?.value == 2_414.016)
        #expect(byName["body_mass"]?.first?.value.map { ($0 * 100).rounded() / 100 } == 74.98)
        #expect(byName["body_mass"]?.first?.source.kind == .scale)
        #expect(byName["spo2"]?.first?.value == 97)
        #expect(byName["resting_heart_rate"]?.first?.value == 52)
        #expect(byName["hrv_sdnn"]?.first?.value == 48.2)
        #expect(byName["respiratory_rate"]?.first?.value == 14.5)
        #expect(byName["body_fat"]?.first?.value == 21.4)
        #expect(byName["vo2_max"]?.first?.value == 41.2)
    }

    @Test func aRunningTotalSentThreeTimesADayCountsOnceAtItsLatestValue() throws {
        var state = HealthIngestDecider.initial
        var counts: [(Int, Int)] = []
        for total in [1_200, 4_800, 9_100] {
            let body = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-16 00:00:00 +0100","qty":\#(total),"source":"iPhone"}]}]}}"#
            let command = HealthIngestDecider.Command(
                deviceId: nil, records: Self.check(try HealthAutoExportFormat.decode(Data(body.utf8))).records, deletions: [])
            let tally = HealthIngestDecider.tally(state, command)
            counts.append((tally.inserted, tally.updated))
            state = HealthIngestDecider.fold(try HealthIngestDecider.decide(state, command, DecisionTime(instant: Self.now, today: LocalDate(year: 2024, month: 1, day: 17) ?? LocalDate(daysSinceEpoch: 0))), from: state)
        }
        #expect(counts.map(\.0) == [1, 0, 0])
        #expect(counts.map(\.1) == [0, 1, 1])
        #expect(state.byKey.values.map(\.value) == [9_100])
    }

    @Test func healthAutoExportSleepPerSegmentAndPerNightInThreeGenerations() throws {
        let segments = #"""
        {"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[
          {"startDate":"2024-01-14 23:00:00 +0100","endDate":"2024-01-15 01:00:00 +0100","value":"Core","source":"Apple Watch"},
          {"startDate":"2024-01-15 01:00:00 +0100","endDate":"2024-01-15 02:00:00 +0100","value":"Deep","source":"Apple Watch"},
          {"startDate":"2024-01-15 02:00:00 +0100","endDate":"2024-01-15 03:00:00 +0100","value":"REM","source":"Apple Watch"},
          {"startDate":"2024-01-15 03:00:00 +0100","endDate":"2024-01-15 03:10:00 +0100","value":"Awake","source":"Apple Watch"},
          {"startDate":"2024-01-14 22:50:00 +0100","endDate":"2024-01-15 07:00:00 +0100","value":"In Bed","source":"iPhone"},
          {"startDate":"2024-01-15 03:10:00 +0100","endDate":"2024-01-15 06:00:00 +0100","value":"Asleep","source":"Apple Watch"},
          {"startDate":"2024-01-15 06:00:00 +0100","endDate":"2024-01-15 06:30:00 +0100","value":"Unspecified","source":"Apple Watch"}]}]}}
        """#
        let perSegment = Self.check(try HealthAutoExportFormat.decode(Data(segments.utf8)))
        #expect(perSegment.records.map(\.name) == ["core", "deep", "rem", "awake", "in_bed", "asleep", "asleep"])
        #expect(Set(perSegment.records.map(\.date.description)) == ["2024-01-15"])

        let generations = [
            #"{"date":"2024-01-15","asleep":7.5,"sleepStart":"2024-01-14 23:00:00 +0100","sleepEnd":"2024-01-15 06:30:00 +0100","inBed":8,"inBedStart":"2024-01-14 22:45:00 +0100","inBedEnd":"2024-01-15 06:45:00 +0100","source":"Apple Watch"}"#,
            #"{"date":"2024-01-15","core":4,"deep":1.5,"rem":1.5,"awake":0.25,"asleep":0.5,"inBed":8,"sleepStart":"2024-01-14 23:00:00 +0100","sleepEnd":"2024-01-15 06:45:00 +0100","source":"Apple Watch"}"#,
            #"{"date":"2024-01-15","totalSleep":7.5,"core":4,"deep":1.5,"rem":1.5,"awake":0.25,"asleep":0.5,"inBed":8,"sleepStart":"2024-01-14 23:00:00 +0100","sleepEnd":"2024-01-15 06:45:00 +0100","source":"Apple Watch"}"#,
        ]
        for night in generations {
            let body = #"{"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[\#(night)]}]}}"#
            let records = Self.check(try HealthAutoExportFormat.decode(Data(body.utf8))).records
            let asleep = records.filter { SleepStage(rawValue: $0.name)?.isAsleep == true }.map { $0.endSeconds - $0.startSeconds }.reduce(0, +)
            #expect(asleep == 27_000, "\(night)")  // 7.5 hours
            #expect(records.contains { $0.name == "in_bed" && $0.endSeconds - $0.startSeconds == 28_800 })
            #expect(records.allSatisfy { $0.date.description == "2024-01-15" })
        }
    }

    @Test func healthAutoExportWorkoutsInBothShapes() throws {
        let body = #"""
        {"data":{"workouts":[
          {"name":"Outdoor Run","start":"2024-01-15 07:00:00 +0100","end":"2024-01-15 07:30:00 +0100",
           "activeEnergy":{"qty":1255.2,"units":"kJ"},"distance":{"qty":5.2,"units":"km"},"heartRateData":[{"date":"2024-01-15 07:01:00 +0100","qty":120}],
           "avgHeartRate":{"qty":142,"units":"count/min"}},
          {"id":"A1B2C3D4-0000-0000-0000-000000000001","name":"Cycling","start":"2024-01-15 17:00:00 +0100","end":"2024-01-15 18:00:00 +0100",
           "duration":3600,"activeEnergyBurned":{"qty":450,"units":"kcal"},"distance":{"qty":12.5,"units":"mi"},
           "heartRate":{"min":{"qty":90,"units":"bpm"},"avg":{"qty":128,"units":"bpm"},"max":{"qty":165,"units":"bpm"}},"route":[]}]}}
        """#
        let intake = try HealthAutoExportFormat.decode(Data(body.utf8))
        #expect(intake.workouts.map(\.type) == ["Outdoor Run", "Cycling"])
        #expect(intake.workouts.map { $0.activeEnergyKcal.map { ($0 * 1_000).rounded() / 1_000 } } == [300, 450])
        #expect(intake.workouts.map { $0.distanceM.map { ($0 * 1_000).rounded() / 1_000 } } == [5_200, 20_116.8])
        #expect(intake.workouts.map(\.avgHeartRate) == [142, 128])
        #expect(intake.workouts.last?.uuid == "A1B2C3D4-0000-0000-0000-000000000001")
        #expect(Self.check(intake).records.count == 2)
    }

    @Test func aBodyThatIsNotTheFormatIsRefused() {
        // The two lists are the format: data, metrics or workouts of another type is no body of it
        // (issue 24: a list sent as an object or a number was read as empty, answering 200 for nothing).
        for body in ["[]", "{}", "nonsense", #"{"data":[]}"#, #"{"data":5,"metrics":[]}"#, #"{"data":{"metrics":{}}}"#, #"{"workouts":"x"}"#] {
            #expect(throws: HealthFormatError.self, "\(body)") { try HealthAutoExportFormat.decode(Data(body.utf8)) }
        }
    }

    /// Past the lists, Health Auto Export is read leniently, but nothing is silently lost: a metric
    /// without a list of points is skipped (counted), as an unknown one is.
    @Test func aHealthAutoExportMetricWithoutPointsIsSkipped() throws {
        let intake = try HealthAutoExportFormat.decode(Data(#"{"data":{"metrics":[{"name":"step_count"},{"name":"step_count","data":{}},7]}}"#.utf8))
        #expect(intake.skipped == 3)
        #expect(intake.received == 3)
    }

    /// A figure that is there but no number rejects its night or workout, with the field named; it
    /// was read as 0 (issue 24). Null is the same as leaving it out.
    @Test func anExportersFigureThatIsNoNumberRejectsItsItem() throws {
        let pulse = try PulseFormat.decode(Data(#"{"totalSleep":7,"deep":false,"rem":null,"inBedStart":"2024-01-14T22:30:00Z"}"#.utf8))
        #expect(pulse.sleep.isEmpty)
        #expect(pulse.rejected == 1 && pulse.errors.map(\.field) == ["deep"])
        let night = try HealthAutoExportFormat.decode(Data(#"{"data":{"metrics":[{"name":"sleep_analysis","data":[{"sleepStart":"2024-01-14 22:30:00 +0000","deep":"x"}]}]}}"#.utf8))
        #expect(night.errors.map(\.field) == ["data.metrics[0].data[0].deep"])
        #expect(night.errors.map(\.index) == [0] && night.received == 1)
    }

    @Test func coachFitDailySummaries() throws {
        let steps = try CoachFitFormat.decodeSteps(Data(#"{"client_id":"c1","steps":[{"date":"2024-01-15","total_steps":8123,"source_devices":["iPhone","Apple Watch"]}]}"#.utf8),
                                                  timeZone: Self.belgrade)
        #expect(steps.samples.first?.series == .summary)
        #expect(steps.samples.first?.start.timeIntervalSince1970 == 1_705_273_200)  // 2024-01-15 00:00 in Belgrade
        #expect(Self.check(steps).records.first?.date.description == "2024-01-15")
        let sleep = try CoachFitFormat.decodeSleep(Data(#"""
            {"sleep_records":[{"date":"2024-01-15","total_sleep_minutes":450,"in_bed_minutes":480,"awake_minutes":15,"asleep_core_minutes":240,
             "asleep_deep_minutes":90,"asleep_rem_minutes":90,"sleep_start":"2024-01-14T22:00:00Z","sleep_end":"2024-01-15T06:00:00Z","source_devices":["Apple Watch"]}]}
            """#.utf8))
        let nights = Self.check(sleep).records
        #expect(nights.filter { $0.name == "deep" }.map { $0.endSeconds - $0.startSeconds } == [5_400])
        #expect(nights.filter { SleepStage(rawValue: $0.name)?.isAsleep == true }.map { $0.endSeconds - $0.startSeconds }.reduce(0, +) == 27_000)
        let workouts = try CoachFitFormat.decodeWorkouts(Data(#"""
            {"workouts":[{"workout_type":"running","start_time":"2024-01-15T07:00:00Z","end_time":"2024-01-15T07:45:00Z","duration_seconds":2700,
             "calories_active":410,"distance_meters":7200,"avg_heart_rate":151,"source_device":"Apple Watch"}]}
            """#.utf8))
        #expect(Self.check(workouts).records.first?.workout == HealthRecord.WorkoutFigures(activeEnergyKcal: 410, distanceM: 7_200, avgHeartRate: 151))
        let profile = try CoachFitFormat.decodeProfile(Data(#"""
            {"metrics":[{"metric":"weight","value":176.4,"unit":"lb","measured_at":"2024-01-15T06:30:00Z"},
                        {"metric":"height","value":180,"unit":"cm","measured_at":"2024-01-15T06:30:00Z"},
                        {"metric":"body_fat","value":0.18,"unit":"%","measured_at":"2024-01-15T06:30:00Z"}]}
            """#.utf8))
        #expect(profile.skipped == 1)
        #expect(Self.check(profile).records.map { (($0.value ?? 0) * 10).rounded() / 10 } == [80, 18])
    }

    @Test func aDurationThatIsNoNumberMakesAnErrorNotACrash() throws {
        let workouts = try CoachFitFormat.decodeWorkouts(Data(#"""
            {"workouts":[{"workout_type":"running","start_time":"2024-01-15T07:00:00Z","duration_seconds":"nan"},
                         {"workout_type":"running","start_time":"2024-01-15T07:00:00Z","duration_seconds":"1e999"}]}
            """#.utf8))
        let checked = Self.check(workouts)
        #expect(checked.records.isEmpty)
        #expect(checked.errors.map(\.field) == ["workouts[0].end", "workouts[1].end"])
    }

    @Test func pulsesNightlySummary() throws {
        let intake = try PulseFormat.decode(Data(#"""
            {"totalSleep":7.5,"deep":1.2,"rem":2.0,"core":4.3,"awake":0.5,"inBedStart":"2024-01-14T22:30:00Z","sleepEnd":"2024-01-15T06:30:00Z","source":"Oura Ring"}
            """#.utf8))
        let records = Self.check(intake).records
        #expect(records.map(\.name) == ["deep", "core", "rem", "awake", "in_bed"])
        #expect(records.first?.source.kind == .ring)
        #expect(records.filter { $0.name == "rem" }.map { $0.endSeconds - $0.startSeconds } == [7_200])
        #expect(records.allSatisfy { $0.date.description == "2024-01-15" })
    }
}
