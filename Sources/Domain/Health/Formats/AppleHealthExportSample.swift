import Foundation

/// A synthetic `export.xml` in Apple's shape, for tests and the import benchmark: the DTD, a
/// watch's and a phone's steps, heart rate, HRV, SpO2 as a fraction, body mass in pounds, sleep
/// in both generations, a blood-pressure correlation (whose records must not count twice) and
/// workouts in the old and the new shape. Deterministic: the same arguments give the same bytes.
public enum AppleHealthExportSample {
    public static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 13 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram)*)>
        <!ATTLIST HealthData locale CDATA #REQUIRED>
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED>
        ]>
        <HealthData locale="en_US">
         <ExportDate value="2024-02-01 09:00:00 +0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet"/>

        """
    public static let footer = "</HealthData>\n"

    static let watch = #"sourceName="Jane&apos;s Apple Watch" sourceVersion="10.1" device="&lt;&lt;HKDevice: 0x2834&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.1&gt;""#
    static let phone = #"sourceName="Jane&apos;s iPhone" sourceVersion="17.2" device="&lt;&lt;HKDevice: 0x2835&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.2&gt;""#

    /// The records of one day (`day` from 2024-01-01), in the export's order.
    public static func day(_ day: Int) -> String {
        let date = LocalDate(year: 2024, month: 1, day: 1).map { $0.adding(days: day) }?.description ?? "2024-01-01"
        let next = LocalDate(year: 2024, month: 1, day: 1).map { $0.adding(days: day + 1) }?.description ?? "2024-01-02"
        func at(_ time: String, _ on: String = date) -> String { "\(on) \(time) +0100" }
        var xml = ""
        for hour in 8..<20 {
            let h = String(hour < 10 ? "0\(hour)" : "\(hour)")
            xml += #" <Record type="HKQuantityTypeIdentifierStepCount" \#(watch) unit="count" creationDate="\#(at("\(h):20:00"))" startDate="\#(at("\(h):00:00"))" endDate="\#(at("\(h):10:00"))" value="\#(300 + (day * 7 + hour) % 200)"/>"# + "\n"
            xml += #" <Record type="HKQuantityTypeIdentifierStepCount" \#(phone) unit="count" creationDate="\#(at("\(h):20:00"))" startDate="\#(at("\(h):00:00"))" endDate="\#(at("\(h):10:00"))" value="\#(250 + hour)"/>"# + "\n"
            xml += #" <Record type="HKQuantityTypeIdentifierHeartRate" \#(watch) unit="count/min" creationDate="\#(at("\(h):05:00"))" startDate="\#(at("\(h):05:00"))" endDate="\#(at("\(h):05:00"))" value="\#(60 + hour)">"# + "\n"
            xml += #"  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>"# + "\n </Record>\n"
        }
        xml += #" <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" \#(watch) unit="ms" startDate="\#(at("03:00:00"))" endDate="\#(at("03:01:00"))" value="\#(40 + day % 9).5"/>"# + "\n"
        xml += #" <Record type="HKQuantityTypeIdentifierRestingHeartRate" \#(watch) unit="count/min" startDate="\#(at("06:00:00"))" endDate="\#(at("06:00:00"))" value="\#(52 + day % 4)"/>"# + "\n"
        xml += #" <Record type="HKQuantityTypeIdentifierOxygenSaturation" \#(watch) unit="%" startDate="\#(at("04:00:00"))" endDate="\#(at("04:00:00"))" value="0.97"/>"# + "\n"
        xml += #" <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Smart Scale" unit="lb" startDate="\#(at("07:00:00"))" endDate="\#(at("07:00:00"))" value="165.3"><MetadataEntry key="HKTimeZone" value="Europe/Belgrade"/></Record>"# + "\n"
        xml += #" <Record type="HKQuantityTypeIdentifierAppleExerciseTime" \#(watch) unit="min" startDate="\#(at("08:00:00"))" endDate="\#(at("08:01:00"))" value="1"/>"# + "\n"
        // Sleep, the night ending on the next date: iOS 16 stages on even days, the older single "Asleep" on odd ones.
        if day % 2 == 0 {
            for (stage, from, to) in [("InBed", "22:45:00", "23:00:00"), ("AsleepCore", "23:00:00", "01:00:00"), ("AsleepDeep", "01:00:00", "02:00:00"),
                                      ("AsleepREM", "02:00:00", "03:00:00"), ("Awake", "03:00:00", "03:05:00"), ("AsleepUnspecified", "03:05:00", "06:00:00")] {
                let start = from < "12" ? at(from, next) : at(from), end = to < "12" ? at(to, next) : at(to)
                xml += #" <Record type="HKCategoryTypeIdentifierSleepAnalysis" \#(watch) startDate="\#(start)" endDate="\#(end)" value="HKCategoryValueSleepAnalysis\#(stage)"/>"# + "\n"
            }
        } else {
            xml += #" <Record type="HKCategoryTypeIdentifierSleepAnalysis" \#(watch) startDate="\#(at("23:30:00"))" endDate="\#(at("06:30:00", next))" value="HKCategoryValueSleepAnalysisAsleep"/>"# + "\n"
        }
        xml += #" <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff" startDate="\#(at("07:30:00"))" endDate="\#(at("07:30:00"))">"# + "\n"
        xml += #"  <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Cuff" unit="mmHg" startDate="\#(at("07:30:00"))" endDate="\#(at("07:30:00"))" value="120"/>"# + "\n"
        xml += #"  <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Cuff" unit="count/min" startDate="\#(at("07:30:00"))" endDate="\#(at("07:30:00"))" value="66"/>"# + "\n"
        xml += " </Correlation>\n"
        if day % 3 == 0 {
            xml += #" <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" totalDistance="5.1" totalDistanceUnit="km" totalEnergyBurned="1255.2" totalEnergyBurnedUnit="kJ" \#(watch) startDate="\#(at("18:00:00"))" endDate="\#(at("18:30:00"))"/>"# + "\n"
        } else if day % 3 == 1 {
            xml += #" <Workout workoutActivityType="HKWorkoutActivityTypeHighIntensityIntervalTraining" duration="20" durationUnit="min" \#(watch) startDate="\#(at("18:00:00"))" endDate="\#(at("18:20:00"))">"# + "\n"
            xml += #"  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="\#(at("18:00:00"))" duration="10" durationUnit="min"/>"# + "\n"
            xml += #"  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="\#(at("18:00:00"))" endDate="\#(at("18:20:00"))" sum="210.5" unit="Cal"/>"# + "\n"
            xml += #"  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="\#(at("18:00:00"))" endDate="\#(at("18:20:00"))" average="151" minimum="110" maximum="175" unit="count/min"/>"# + "\n"
            xml += " </Workout>\n"
        }
        return xml
    }

    /// Records per day: 12 hours × (two steps, one heart rate) + HRV, resting HR, SpO2, body
    /// mass, an exercise-time record lifelog skips, and the night's sleep.
    public static func export(days: Int) -> String {
        header + (0..<days).map(day).joined() + footer
    }
}
