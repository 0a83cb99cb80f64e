import Domain
import Foundation
import Testing

/// The exporters lifelog already accepted, corrected where real samples showed defects (issue 27):
/// Health Auto Export's heart-rate extremes, day totals dated by the app's own date, aggregated
/// sleep's sources, end and units, a workout's heart rate from its readings, ids that keep their
/// case; Apple's export from a phone in another language, CDATA, and the activity rings.
@Suite struct ExporterCorrectionsTests {
    static let belgrade = TimeZone(identifier: "Europe/Belgrade")!
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func autoExport(_ json: String) throws -> HealthIntake {
        try HealthAutoExportFormat.decode(Data(json.utf8))
    }

    @Test func heartRateMinAvgAndMaxMakeTheDaysMinMeanAndMax() throws {
        let intake = try Self.autoExport("""
            {"data":{"metrics":[{"name":"heart_rate","units":"count/min","data":[
              {"date":"2024-01-15 08:00:00 +0100","Min":52,"Avg":61,"Max":97,"source":"Watch"},
              {"date":"2024-01-15 09:00:00 +0100","Min":58,"Avg":75,"Max":142,"source":"Watch"}]}]}}
            """)
        #expect(intake.samples.map(\.min) == [52, 58] && intake.samples.map(\.max) == [97, 142])
        let records = HealthIntakeRules.check(intake, timeZone: Self.belgrade, now: Self.now).records
        #expect(records.map(\.min) == [52, 58] && records.map(\.max) == [97, 142] && records.map(\.value) == [61, 75])
        let day = HealthDay.figure(
            metric: .heartRate, date: try #require(LocalDate("2024-01-15")),
            samples: records.map { CumulativeCredit.Sample(value: $0.value ?? 0, startSeconds: $0.startSeconds, endSeconds: $0.endSeconds,
                                                          source: $0.source, min: $0.min, max: $0.max) },
            summaries: [], manual: nil, priority: .default)
        // Before: min 61 and max 75, the extremes of the averages.
        #expect(day?.value == 68 && day?.min == 52 && day?.max == 142)
    }

    @Test func aDayTotalCountsForTheDateTheAppWroteWhateverTheAccountsZone() throws {
        // A phone at UTC+14 totals its 15 January; in Belgrade that instant is still the 14th.
        let intake = try Self.autoExport("""
            {"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-15 00:00:00 +1400","qty":5200}]},
              {"name":"resting_heart_rate","units":"count/min","data":[{"date":"2024-01-15 00:00:00 +1400","qty":55}]}]}}
            """)
        let records = HealthIntakeRules.check(intake, timeZone: Self.belgrade, now: Self.now).records
        let steps = try #require(records.first { $0.name == "steps" })
        #expect(steps.series == .summary && steps.date.description == "2024-01-15")
        // A reading is not a total: it counts for its instant's date in the user's zone, as before.
        #expect(records.first { $0.name == "resting_heart_rate" }?.date.description == "2024-01-14")
    }

    @Test func aggregatedSleepNamesItsSourceEndsAtSleepEndAndHonoursItsUnits() throws {
        let intake = try Self.autoExport("""
            {"data":{"metrics":[{"name":"sleep_analysis","units":"min","data":[
              {"date":"2024-01-15","totalSleep":420,"deep":60,"rem":90,"core":270,"awake":15,
               "sleepEnd":"2024-01-15 06:45:00 +0100","sleepSource":"Jane's Apple Watch","inBedSource":"Jane's iPhone"}]}]}}
            """)
        #expect(intake.errors == [])
        let asleep = intake.sleep.filter { $0.stage != "awake" && $0.stage != "in_bed" }
        // Minutes, not hours: 420 minutes asleep, not 420 hours.
        #expect(asleep.map { $0.end.timeIntervalSince($0.start) }.reduce(0, +) == 420 * 60)
        // Placed so that it ends at sleepEnd, under the source the app named.
        #expect(intake.sleep.map(\.end).max() == HealthAutoExportDate.instant("2024-01-15 06:45:00 +0100"))
        #expect(Set(intake.sleep.map(\.source.name)) == ["Jane's Apple Watch"] && intake.sleep.first?.source.kind == .watch)

        // With inBedStart, the time in bed runs to sleepEnd.
        let inBed = try Self.autoExport("""
            {"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[{"date":"2024-01-15","totalSleep":7,
              "inBedStart":"2024-01-14 23:00:00 +0100","sleepEnd":"2024-01-15 06:40:00 +0100","source":"Watch"}]}]}}
            """)
        let bed = try #require(inBed.sleep.first { $0.stage == "in_bed" })
        #expect(bed.end.timeIntervalSince(bed.start) == 7 * 3_600 + 40 * 60)
    }

    @Test func aWorkoutsHeartRateReadingsGiveItsAverageWhenNoSummaryIsSent() throws {
        let intake = try Self.autoExport("""
            {"data":{"workouts":[{"id":"wk-AbC-1","name":"Walk","start":"2024-01-15 08:00:00 +0100","end":"2024-01-15 08:30:00 +0100",
              "heartRateData":[{"date":"2024-01-15 08:00:00 +0100","Min":90,"Avg":100,"Max":110},{"date":"2024-01-15 08:10:00 +0100","Avg":120}]},
             {"id":"6F1B0E0A-6C2B-4B44-9D6C-0F6A7E1C2D3E","name":"Run","start":"2024-01-15 18:00:00 +0100","end":"2024-01-15 18:30:00 +0100",
              "avgHeartRate":{"qty":150,"units":"bpm"},"heartRateData":[{"date":"2024-01-15 18:00:00 +0100","Avg":100}]}]}}
            """)
        #expect(intake.workouts.map(\.avgHeartRate) == [110, 150])
        // An id that is not a UUID keeps its case (two ids differing only in case are two workouts);
        // a UUID is one item in either case.
        let records = HealthIntakeRules.check(intake, timeZone: Self.belgrade, now: Self.now).records
        #expect(records.map(\.uuid) == ["wk-AbC-1", "6f1b0e0a-6c2b-4b44-9d6c-0f6a7e1c2d3e"])
    }

    // MARK: Apple's export

    static let localizedExport = AppleHealthExportSample.header.replacingOccurrences(of: "locale=\"en_US\"", with: "locale=\"es_ES\"") + """
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone de Ana" unit="count" value="812" startDate="2024-01-15 08:00:00 +0100" endDate="2024-01-15 08:10:00 +0100"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch de Ana" unit="count/min" value="64" startDate="2024-01-15 08:00:00 +0100" endDate="2024-01-15 08:00:00 +0100">
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
         </Record>
         <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" sourceName="Clinic" fhirVersion="4.0.1"><![CDATA[
          {"note": "<Record type=\\"HKQuantityTypeIdentifierStepCount\\" value=\\"99999\\" startDate=\\"2024-01-15 09:00:00 +0100\\" endDate=\\"2024-01-15 09:10:00 +0100\\"/>"}
         ]]></ClinicalRecord>
         <ActivitySummary dateComponents="2024-01-15" activeEnergyBurned="512.5" activeEnergyBurnedGoal="600" activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="35" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>
         <ActivitySummary dateComponents="2024-01-16" activeEnergyBurned="0" activeEnergyBurnedGoal="600" activeEnergyBurnedUnit="Cal" appleExerciseTime="0" appleExerciseTimeGoal="30" appleStandHours="0" appleStandHoursGoal="12"/>
        """ + AppleHealthExportSample.footer

    static func read(_ xml: String, chunk: Int) -> HealthIntake {
        var reader = AppleHealthExportReader()
        var intake = HealthIntake()
        let bytes = Array(xml.utf8)
        for start in stride(from: 0, to: bytes.count, by: chunk) { intake.append(reader.feed(bytes[start..<min(start + chunk, bytes.count)])) }
        intake.append(reader.finish())
        return intake
    }

    @Test func theExportIsFoundByItsRootElementNotItsFileName() {
        #expect(AppleHealthExportReader.rootElement(Array(Self.localizedExport.utf8)) == "HealthData")
        let cda = #"<?xml version="1.0" encoding="UTF-8"?><!-- CDA --><ClinicalDocument xmlns="urn:hl7-org:v3"><Record/></ClinicalDocument>"#
        #expect(AppleHealthExportReader.rootElement(Array(cda.utf8)) == "ClinicalDocument")
        #expect(AppleHealthExportReader.rootElement(Array("<?xml version=\"1.0\"?>".utf8)) == nil)
    }

    @Test(arguments: [1, 7, 4_096])
    func textInCDATAIsNeverARecordAndActivitySummariesAreKeptOrCounted(_ chunk: Int) throws {
        let intake = Self.read(Self.localizedExport, chunk: chunk)
        // The step count inside the clinical record's CDATA is text, not a record.
        #expect(intake.samples.filter { $0.metric == "steps" }.map(\.value) == [812])
        let energy = try #require(intake.samples.first { $0.metric == "active_energy" })
        #expect(energy.value == 512.5 && energy.series == .summary && energy.localDate?.description == "2024-01-15" && energy.unit == "Cal")
        // Each row's exercise and stand figures and goals are counted as skipped; the day of 0 kcal too.
        #expect(intake.skipped == 3 && intake.errors == [], "\(intake.skipped) \(intake.errors)")
        let records = HealthIntakeRules.check(intake, timeZone: TimeZone(identifier: "America/Los_Angeles")!, now: Self.now).records
        #expect(records.first { $0.name == "active_energy" }?.date.description == "2024-01-15")
    }
}
