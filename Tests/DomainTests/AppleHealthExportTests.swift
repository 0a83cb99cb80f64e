import Domain
import Foundation
import Testing

/// Apple Health's export.xml, read as a stream.
@Suite struct AppleHealthExportTests {
    static let belgrade = TimeZone(identifier: "Europe/Belgrade") ?? .gmt
    static let now = Date(timeIntervalSince1970: 1_709_251_200)  // 2024-03-01

    static func read(_ xml: String, chunk: Int) -> HealthIntake {
        var reader = AppleHealthExportReader()
        var intake = HealthIntake()
        let bytes = Array(xml.utf8)
        var offset = 0
        while offset < bytes.count {
            intake.append(reader.feed(bytes[offset..<min(offset + chunk, bytes.count)]))
            offset += chunk
        }
        intake.append(reader.finish())
        return intake
    }

    @Test func theResultDoesNotDependOnHowTheFileIsCut() {
        let xml = AppleHealthExportSample.export(days: 6)
        let whole = Self.read(xml, chunk: xml.utf8.count)
        for chunk in [1, 7, 4_096] {
            #expect(Self.read(xml, chunk: chunk) == whole, "chunks of \(chunk)")
        }
    }

    @Test func recordsSleepAndWorkoutsAreMappedAndACorrelationsRecordsAreNotCountedTwice() throws {
        let intake = Self.read(AppleHealthExportSample.export(days: 6), chunk: 1_000)
        let checked = HealthIntakeRules.check(intake, timeZone: Self.belgrade, now: Self.now)
        #expect(checked.errors.isEmpty)
        let byName = Dictionary(grouping: checked.records, by: \.name)
        #expect(byName["steps"]?.count == 6 * 24)
        // 12 a day from the watch; the cuff's heart rate inside the blood-pressure correlation is not one of them.
        #expect(byName["heart_rate"]?.count == 6 * 12)
        #expect(byName["heart_rate"]?.allSatisfy { $0.source.name == "Jane's Apple Watch" && $0.source.kind == .watch } == true)
        #expect(byName["steps"]?.filter { $0.source.kind == .phone }.count == 6 * 12)
        #expect(byName["spo2"]?.first?.value == 97)
        #expect(byName["body_mass"]?.first?.value.map { ($0 * 100).rounded() / 100 } == 74.98)
        #expect(byName["hrv_sdnn"]?.count == 6)
        // Skipped: exercise time every day, and the correlation's systolic reading is never read at all.
        #expect(intake.skipped == 6)
        // Both sleep generations: stages on even days, one "Asleep" on odd ones.
        #expect(Set(checked.records.filter { $0.kind == .sleep }.map(\.name)) == ["in_bed", "core", "deep", "rem", "awake", "asleep"])
        #expect(checked.records.filter { $0.kind == .sleep && $0.date.description == "2024-01-02" }.count == 6)
        #expect(checked.records.filter { $0.kind == .sleep && $0.date.description == "2024-01-03" }.map(\.name) == ["asleep"])
        let workouts = checked.records.filter { $0.kind == .workout }
        #expect(workouts.map(\.name) == ["running", "high_intensity_interval_training", "running", "high_intensity_interval_training"])
        #expect(workouts.first?.workout?.distanceM == 5_100)
        #expect(workouts.first?.workout?.activeEnergyKcal.map { $0.rounded() } == 300)
        #expect(workouts[1].workout?.activeEnergyKcal == 210.5)
        #expect(workouts[1].workout?.avgHeartRate == 151)
    }

    @Test func entitiesAndCommentsAreReadAsXMLHasThem() {
        let xml = AppleHealthExportSample.header + """
             <!-- a comment with <Record type="HKQuantityTypeIdentifierStepCount"> inside -->
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A &amp; B&#39;s &#x263A;" unit="count" startDate="2024-01-15 08:00:00 +0100" endDate="2024-01-15 08:10:00 +0100" value="10"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="&lt;Ring&gt; &quot;1&quot;" unit="count" startDate="2024-01-15 08:10:00 +0100" endDate="2024-01-15 08:20:00 +0100" value="10"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Bad&#0;Byte" unit="count" startDate="2024-01-15 08:20:00 +0100" endDate="2024-01-15 08:30:00 +0100" value="10"/>
            """ + AppleHealthExportSample.footer
        let intake = Self.read(xml, chunk: 13)
        // XML has no character 0, and PostgreSQL's jsonb would refuse the batch with it: kept as written.
        #expect(intake.samples.map(\.source.name) == ["A & B's ☺", "<Ring> \"1\"", "Bad&#0;Byte"])
    }
}
