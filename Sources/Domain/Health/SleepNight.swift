import Foundation

/// One night's sleep for the date it ends on (DESIGN §4), from one source: the highest-priority
/// source with sleep that night, its overlapping segments merged.
public struct SleepNight: Codable, Equatable, Sendable {
    public struct Segment: Codable, Equatable, Sendable {
        public var stage: SleepStage
        public var startSeconds: Int64
        public var endSeconds: Int64
        public init(stage: SleepStage, startSeconds: Int64, endSeconds: Int64) {
            self.stage = stage
            self.startSeconds = startSeconds
            self.endSeconds = endSeconds
        }
    }

    public var date: LocalDate
    public var asleepMinutes: Int
    public var inBedMinutes: Int
    public var awakeMinutes: Int
    public var coreMinutes: Int
    public var deepMinutes: Int
    public var remMinutes: Int
    public var startSeconds: Int64
    public var endSeconds: Int64
    public var source: String
    /// The chosen source's segments in time order, same-stage overlaps merged (a hypnogram).
    public var segments: [Segment]

    public init(date: LocalDate, asleepMinutes: Int, inBedMinutes: Int, awakeMinutes: Int, coreMinutes: Int, deepMinutes: Int,
                remMinutes: Int, startSeconds: Int64, endSeconds: Int64, source: String, segments: [Segment]) {
        self.date = date
        self.asleepMinutes = asleepMinutes
        self.inBedMinutes = inBedMinutes
        self.awakeMinutes = awakeMinutes
        self.coreMinutes = coreMinutes
        self.deepMinutes = deepMinutes
        self.remMinutes = remMinutes
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.source = source
        self.segments = segments
    }

    /// The night of `date` from its segments (any sources); nil when none is sleep.
    public static func build(date: LocalDate, segments: [(Segment, HealthSource)], priority: HealthSourcePriority) -> SleepNight? {
        let withSleep = segments.filter { $0.0.stage.isAsleep }.map(\.1)
        guard let source = Set(withSleep).min(by: priority.precedes) else { return nil }
        let own = segments.filter { $0.1 == source }.map(\.0)
        var byStage: [SleepStage: IntervalUnion] = [:]
        for segment in own { byStage[segment.stage, default: IntervalUnion()].insert(segment.startSeconds, segment.endSeconds) }
        var asleep = IntervalUnion()
        for segment in own where segment.stage.isAsleep { asleep.insert(segment.startSeconds, segment.endSeconds) }
        var everything = IntervalUnion()
        for segment in own { everything.insert(segment.startSeconds, segment.endSeconds) }
        let minutes = { (stage: SleepStage) in Int((byStage[stage]?.length ?? 0) / 60) }
        let merged = byStage.flatMap { stage, union in union.intervals.map { Segment(stage: stage, startSeconds: $0.start, endSeconds: $0.end) } }
            .sorted { ($0.startSeconds, $0.stage.rawValue) < ($1.startSeconds, $1.stage.rawValue) }
        let sleepSpan = asleep.intervals
        return SleepNight(
            date: date,
            asleepMinutes: Int(asleep.length / 60),
            // Without in-bed segments, the time in bed is the time the source recorded at all.
            inBedMinutes: byStage[.inBed] == nil ? Int(everything.length / 60) : minutes(.inBed),
            awakeMinutes: minutes(.awake), coreMinutes: minutes(.core), deepMinutes: minutes(.deep), remMinutes: minutes(.rem),
            startSeconds: sleepSpan.first?.start ?? 0, endSeconds: sleepSpan.last?.end ?? 0,
            source: source.name, segments: merged)
    }
}
