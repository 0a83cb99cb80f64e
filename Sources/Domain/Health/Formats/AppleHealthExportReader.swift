import Foundation

/// Apple Health's own export (`export.xml`, inside `export.zip`), read as a stream: the caller
/// feeds chunks of bytes and gets back the items completed in them, so ten years of a watch
/// (millions of records, gigabytes) pass through in bounded memory. Records inside a
/// `Correlation` are skipped (the export lists them at the top level too); sleep values of both
/// generations are mapped; percentages stay the fractions Apple writes (the rules read them).
/// A small scanner of tags and attributes, not a general XML parser: the export is flat.
public struct AppleHealthExportReader: Sendable {
    private var pending: [UInt8] = []
    private var correlationDepth = 0
    private var workout: HealthIntake.Workout?
    /// Sources by their name and device description: an export names a handful, a million times.
    private var sources: [SourceKey: HealthSource] = [:]

    private struct SourceKey: Hashable, Sendable {
        var name: String?
        var device: String?
    }
    /// `Record` and `Workout` elements seen so far.
    public private(set) var recordsSeen = 0
    public private(set) var bytesConsumed = 0

    public init() {}

    static let quantityTypes: [String: HealthMetric] = [
        "HKQuantityTypeIdentifierStepCount": .steps,
        "HKQuantityTypeIdentifierDistanceWalkingRunning": .distance,
        "HKQuantityTypeIdentifierActiveEnergyBurned": .activeEnergy,
        "HKQuantityTypeIdentifierHeartRate": .heartRate,
        "HKQuantityTypeIdentifierRestingHeartRate": .restingHeartRate,
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": .hrvSdnn,
        "HKQuantityTypeIdentifierOxygenSaturation": .spo2,
        "HKQuantityTypeIdentifierRespiratoryRate": .respiratoryRate,
        "HKQuantityTypeIdentifierBodyMass": .bodyMass,
        "HKQuantityTypeIdentifierBodyFatPercentage": .bodyFat,
        "HKQuantityTypeIdentifierVO2Max": .vo2Max,
    ]
    static let sleepValues: [String: SleepStage] = [
        "HKCategoryValueSleepAnalysisInBed": .inBed,
        "HKCategoryValueSleepAnalysisAwake": .awake,
        "HKCategoryValueSleepAnalysisAsleepCore": .core,
        "HKCategoryValueSleepAnalysisAsleepDeep": .deep,
        "HKCategoryValueSleepAnalysisAsleepREM": .rem,
        "HKCategoryValueSleepAnalysisAsleep": .asleep,
        "HKCategoryValueSleepAnalysisAsleepUnspecified": .asleep,
    ]

    /// The items completed within `bytes` (and what earlier chunks left unfinished).
    public mutating func feed(_ bytes: some Collection<UInt8>) -> HealthIntake {
        pending.append(contentsOf: bytes)
        var intake = HealthIntake()
        let consumed = scan(&intake, final: false)
        pending.removeFirst(consumed)
        bytesConsumed += consumed
        return intake
    }

    /// The end of the file: what is left.
    public mutating func finish() -> HealthIntake {
        var intake = HealthIntake()
        let consumed = scan(&intake, final: true)
        bytesConsumed += consumed
        pending.removeAll()
        if let open = workout { intake.workouts.append(open); workout = nil }
        return intake
    }

    /// Reads whole tags from `pending`; answers how many bytes it used.
    private mutating func scan(_ intake: inout HealthIntake, final: Bool) -> Int {
        let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'")
        return pending.withUnsafeBufferPointer { buffer -> Int in
            var index = 0
            var used = 0
            let count = buffer.count
            while index < count {
                guard let open = (index..<count).first(where: { buffer[$0] == lt }) else { return count }
                // A comment may hold '>' anywhere: it ends at "-->".
                if open + 3 < count, buffer[open + 1] == UInt8(ascii: "!"), buffer[open + 2] == UInt8(ascii: "-"), buffer[open + 3] == UInt8(ascii: "-") {
                    var end = open + 4
                    while end + 2 < count, !(buffer[end] == UInt8(ascii: "-") && buffer[end + 1] == UInt8(ascii: "-") && buffer[end + 2] == gt) { end += 1 }
                    guard end + 2 < count else { return used }
                    index = end + 3
                    used = index
                    continue
                }
                // Character data is text, never a tag, whatever it holds: it ends at "]]>".
                if Self.startsCDATA(buffer, at: open) {
                    var end = open + 9
                    while end + 2 < count, !(buffer[end] == UInt8(ascii: "]") && buffer[end + 1] == UInt8(ascii: "]") && buffer[end + 2] == gt) { end += 1 }
                    guard end + 2 < count else { return final ? count : used }
                    index = end + 3
                    used = index
                    continue
                }
                // The tag's end: the first '>' outside a quoted attribute value.
                var end = open + 1
                var inQuote: UInt8 = 0
                while end < count {
                    let byte = buffer[end]
                    if inQuote != 0 { if byte == inQuote { inQuote = 0 } } else if byte == quote || byte == apostrophe { inQuote = byte } else if byte == gt { break }
                    end += 1
                }
                guard end < count else { return final ? count : used }
                handle(UnsafeBufferPointer(rebasing: buffer[(open + 1)..<end]), into: &intake)
                index = end + 1
                used = index
            }
            return used
        }
    }

    private mutating func handle(_ tag: UnsafeBufferPointer<UInt8>, into intake: inout HealthIntake) {
        guard let first = tag.first else { return }
        if first == UInt8(ascii: "/") {
            let name = Self.name(UnsafeBufferPointer(rebasing: tag[1...]))
            if name == "Correlation" { correlationDepth = max(0, correlationDepth - 1) }
            if name == "Workout", let open = workout { intake.workouts.append(open); workout = nil }
            return
        }
        guard first != UInt8(ascii: "!"), first != UInt8(ascii: "?") else { return }
        let name = Self.name(tag)
        let selfClosing = tag.last == UInt8(ascii: "/")
        switch name {
        case "Correlation":
            if !selfClosing { correlationDepth += 1 }
        case "Record":
            guard correlationDepth == 0 else { return }
            recordsSeen += 1
            record(Self.attributes(tag), into: &intake)
        case "Workout":
            recordsSeen += 1
            let attributes = Self.attributes(tag)
            guard let start = attributes["startDate"].flatMap(HealthAutoExportDate.instant),
                  let end = attributes["endDate"].flatMap(HealthAutoExportDate.instant) else {
                intake.reject(HealthItemError(index: recordsSeen, field: "Workout[\(recordsSeen)].startDate", message: "is not a date"))
                return
            }
            let type = (attributes["workoutActivityType"] ?? "workout").replacingOccurrences(of: "HKWorkoutActivityType", with: "")
            var found = HealthIntake.Workout(
                type: Self.snake(type), start: start, end: end,
                activeEnergyKcal: Self.figure(attributes["totalEnergyBurned"], attributes["totalEnergyBurnedUnit"], .activeEnergy),
                distanceM: Self.figure(attributes["totalDistance"], attributes["totalDistanceUnit"], .distance),
                source: Self.source(attributes), path: "Workout[\(recordsSeen)]")
            if selfClosing { intake.workouts.append(found) } else { found.path = "Workout[\(recordsSeen)]"; workout = found }
        case "ActivitySummary":
            guard correlationDepth == 0 else { return }
            recordsSeen += 1
            activitySummary(Self.attributes(tag), into: &intake)
        case "WorkoutStatistics":
            guard var open = workout else { return }
            let attributes = Self.attributes(tag)
            switch attributes["type"] {
            case "HKQuantityTypeIdentifierActiveEnergyBurned":
                open.activeEnergyKcal = Self.figure(attributes["sum"], attributes["unit"], .activeEnergy) ?? open.activeEnergyKcal
            case "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierDistanceCycling", "HKQuantityTypeIdentifierDistanceSwimming":
                open.distanceM = Self.figure(attributes["sum"], attributes["unit"], .distance) ?? open.distanceM
            case "HKQuantityTypeIdentifierHeartRate":
                open.avgHeartRate = attributes["average"].flatMap(Double.init) ?? open.avgHeartRate
            default:
                break
            }
            workout = open
        default:
            return
        }
    }

    private mutating func record(_ attributes: [String: String], into intake: inout HealthIntake) {
        guard let type = attributes["type"] else { return }
        let path = "Record[\(recordsSeen)]"
        let metric = Self.quantityTypes[type]
        let isSleep = type == "HKCategoryTypeIdentifierSleepAnalysis"
        guard metric != nil || isSleep else { intake.skipped += 1; return }
        guard let start = attributes["startDate"].flatMap(HealthAutoExportDate.instant),
              let end = attributes["endDate"].flatMap(HealthAutoExportDate.instant) else {
            intake.reject(HealthItemError(index: recordsSeen, field: "\(path).startDate", message: "is not a date as yyyy-MM-dd HH:mm:ss Z"))
            return
        }
        let source = cachedSource(attributes)
        if let metric {
            guard let value = attributes["value"].flatMap(Double.init) else {
                intake.reject(HealthItemError(index: recordsSeen, field: "\(path).value", message: "is not a number"))
                return
            }
            intake.samples.append(.init(metric: metric.rawValue, value: value, unit: Self.unit(attributes["unit"]), start: start, end: end,
                                        source: source, path: path))
        } else if let stage = attributes["value"].flatMap({ Self.sleepValues[$0] }) {
            intake.sleep.append(.init(stage: stage.rawValue, start: start, end: end, source: source, path: path))
        } else {
            intake.skipped += 1
        }
    }

    /// A day's activity rings (`<ActivitySummary dateComponents="2024-01-15" activeEnergyBurned=…/>`):
    /// the active energy is the day's total as the phone counted it, kept as a client total for
    /// that date (samples of the day outrank it); the exercise and stand figures and the goals
    /// are not lifelog metrics and are counted as skipped, one per row that has any. A row whose
    /// active energy is 0 (Apple writes one for every day since the phone was set up, worn or
    /// not) is counted as skipped too, so it does not make a day of "0 kcal" out of a day without data.
    private mutating func activitySummary(_ attributes: [String: String], into intake: inout HealthIntake) {
        let path = "ActivitySummary[\(recordsSeen)]"
        let others = ["activeEnergyBurnedGoal", "appleMoveTime", "appleMoveTimeGoal", "appleExerciseTime", "appleExerciseTimeGoal",
                      "appleStandHours", "appleStandHoursGoal"]
        if others.contains(where: { attributes[$0] != nil }) { intake.skipped += 1 }
        guard let energy = attributes["activeEnergyBurned"] else { return }
        guard let day = attributes["dateComponents"].flatMap({ LocalDate($0) }), let value = Double(energy) else {
            intake.reject(HealthItemError(index: recordsSeen, field: "\(path).dateComponents", message: "needs a date and a number"))
            return
        }
        guard value > 0 else { intake.skipped += 1; return }
        // The date's UTC midnight as its instant: the item is identified by it, and dated by the date itself.
        let midnight = Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch * 86_400))
        intake.samples.append(.init(metric: HealthMetric.activeEnergy.rawValue, value: value, unit: attributes["activeEnergyBurnedUnit"],
                                    start: midnight, end: midnight, source: HealthSource(name: "Apple Health (activity summary)", kind: .phone),
                                    series: .summary, path: path, localDate: day))
    }

    private mutating func cachedSource(_ attributes: [String: String]) -> HealthSource {
        let key = SourceKey(name: attributes["sourceName"], device: attributes["device"])
        if let known = sources[key] { return known }
        let source = Self.source(attributes)
        if sources.count < 1_000 { sources[key] = source }
        return source
    }
}
