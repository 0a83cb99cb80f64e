import Foundation

/// A night given as totals (hours or minutes of core, deep, REM, awake) rather than segments,
/// as exporters summarise it, laid out as segments so the one pipeline stores and reads it:
/// from the time sleep started, deep, then core, then REM, then any asleep time left without a
/// stage, then the awake time; and one in-bed segment when the night has a time in bed.
/// The order within the night is made up; the minutes of each stage are what was sent.
public struct SleepNightLayout: Sendable {
    public var sleepStart: Date
    public var deep: TimeInterval = 0
    public var core: TimeInterval = 0
    public var rem: TimeInterval = 0
    /// Total time asleep; the part no stage accounts for becomes `asleep`.
    public var asleep: TimeInterval = 0
    public var awake: TimeInterval = 0
    public var inBed: (start: Date, end: Date)?

    public init(sleepStart: Date) { self.sleepStart = sleepStart }

    public func segments(source: HealthSource, path: String) -> [HealthIntake.Sleep] {
        var cursor = sleepStart
        var segments: [HealthIntake.Sleep] = []
        let staged = deep + core + rem
        for (stage, length) in [("deep", deep), ("core", core), ("rem", rem), ("asleep", max(0, asleep - staged)), ("awake", awake)]
        where length >= 60 {
            let end = cursor.addingTimeInterval(length.rounded())
            segments.append(HealthIntake.Sleep(stage: stage, start: cursor, end: end, source: source, path: path))
            cursor = end
        }
        if let inBed, inBed.end > inBed.start {
            segments.append(HealthIntake.Sleep(stage: "in_bed", start: inBed.start, end: inBed.end, source: source, path: path))
        }
        return segments
    }
}
