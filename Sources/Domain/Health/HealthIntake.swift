import Foundation

/// What a format's decoder makes of a request: items as the client sent them (values in the
/// client's units, nothing checked yet), the uuids it deleted, and what the decoder itself
/// skipped or could not read. Every format ends here; validation, units, deduplication and
/// storage are shared (`HealthIntakeRules`, `HealthIngestDecider`).
public struct HealthIntake: Sendable, Equatable {
    public var samples: [Sample] = []
    public var sleep: [Sleep] = []
    public var workouts: [Workout] = []
    public var deletions: [String] = []
    /// Items or fields the format has that lifelog does not store (an unknown metric of Health
    /// Auto Export): counted, never an error.
    public var skipped: Int = 0
    /// Why the decoder could not read some items (a date it cannot parse), by position: an
    /// item can have several.
    public var errors: [HealthItemError] = []
    /// Items the decoder could not read at all, each with its errors in `errors`.
    public var rejected: Int = 0

    public init(samples: [Sample] = [], sleep: [Sleep] = [], workouts: [Workout] = [], deletions: [String] = [],
                skipped: Int = 0, errors: [HealthItemError] = []) {
        self.samples = samples
        self.sleep = sleep
        self.workouts = workouts
        self.deletions = deletions
        self.skipped = skipped
        self.errors = errors
        rejected = Set(errors.map(\.field).map(HealthItemError.item(of:))).count
    }

    /// One item the decoder could not read, with what is wrong with it.
    public mutating func reject(_ errors: [HealthItemError]) {
        self.errors += errors
        rejected += 1
    }

    public mutating func reject(_ error: HealthItemError) { reject([error]) }

    /// Appends another intake's items (a streaming reader's output, chunk by chunk).
    public mutating func append(_ other: HealthIntake) {
        samples += other.samples
        sleep += other.sleep
        workouts += other.workouts
        deletions += other.deletions
        skipped += other.skipped
        errors += other.errors
        rejected += other.rejected
    }

    /// Items in this intake, counted as the answer's `received`: an item the decoder refused
    /// counts once, however many of its fields are wrong.
    public var received: Int { samples.count + sleep.count + workouts.count + deletions.count + skipped + rejected }

    /// Whether a value is one reading or a client's total over a period.
    public enum Series: String, Codable, Sendable {
        /// A reading or a sample over its own interval, as the device recorded it.
        case sample
        /// A client's aggregate over a period (a day's step count so far): it replaces the
        /// earlier total for the same metric, period start and source, and is never added to samples.
        case summary
    }

    public struct Sample: Sendable, Equatable {
        public var uuid: String?
        /// The metric's name as lifelog knows it (decoders map their own names to these).
        public var metric: String
        public var value: Double
        public var unit: String?
        public var start: Date
        public var end: Date
        public var source: HealthSource
        public var series: Series
        /// Where the item was in the request, for its error: `samples[3]`, `data.metrics[2].data[7]`.
        public var path: String
        /// The local date the client named for the item (a day total written as
        /// `2024-01-15 00:00:00 -0500` means the 15th, whatever the account's zone); nil: the
        /// date of its start in the user's zone.
        public var localDate: LocalDate?
        /// The lowest and highest reading the value summarises (Health Auto Export's heart rate
        /// `Min`/`Max` around its `Avg`), in the same unit as `value`.
        public var min: Double?
        public var max: Double?

        public init(uuid: String? = nil, metric: String, value: Double, unit: String?, start: Date, end: Date,
                    source: HealthSource, series: Series = .sample, path: String, localDate: LocalDate? = nil,
                    min: Double? = nil, max: Double? = nil) {
            self.uuid = uuid
            self.metric = metric
            self.value = value
            self.unit = unit
            self.start = start
            self.end = end
            self.source = source
            self.series = series
            self.path = path
            self.localDate = localDate
            self.min = min
            self.max = max
        }
    }

    public struct Sleep: Sendable, Equatable {
        public var uuid: String?
        public var stage: String
        public var start: Date
        public var end: Date
        public var source: HealthSource
        public var path: String

        public init(uuid: String? = nil, stage: String, start: Date, end: Date, source: HealthSource, path: String) {
            self.uuid = uuid
            self.stage = stage
            self.start = start
            self.end = end
            self.source = source
            self.path = path
        }
    }

    public struct Workout: Sendable, Equatable {
        public var uuid: String?
        public var type: String
        public var start: Date
        public var end: Date
        public var activeEnergyKcal: Double?
        public var distanceM: Double?
        public var avgHeartRate: Double?
        public var source: HealthSource
        public var path: String

        public init(uuid: String? = nil, type: String, start: Date, end: Date, activeEnergyKcal: Double? = nil,
                    distanceM: Double? = nil, avgHeartRate: Double? = nil, source: HealthSource, path: String) {
            self.uuid = uuid
            self.type = type
            self.start = start
            self.end = end
            self.activeEnergyKcal = activeEnergyKcal
            self.distanceM = distanceM
            self.avgHeartRate = avgHeartRate
            self.source = source
            self.path = path
        }
    }
}

/// Why one item of a batch was not stored. The good items of the batch are stored all the same.
public struct HealthItemError: Codable, Equatable, Sendable {
    /// The item's position in the request's array it came in (the last index of its path).
    public var index: Int
    public var field: String
    public var message: String

    public init(index: Int, field: String, message: String) {
        self.index = index
        self.field = field
        self.message = message
    }

    /// An error of the item at `path` (`samples[3]`, `data.metrics[2].data[7]`), indexed by it.
    public init(item path: String, field: String?, message: String) {
        self.init(index: Self.index(of: path), field: field.map { "\(path).\($0)" } ?? path, message: message)
    }

    /// The last index in a path: `data.metrics[2].data[7]` → 7; a path without one (Pulse's single night) → 0.
    public static func index(of path: String) -> Int {
        guard path.hasSuffix("]"), let open = path.lastIndex(of: "[") else { return 0 }
        return Int(path[path.index(after: open)..<path.index(before: path.endIndex)]) ?? 0
    }

    /// The item a field's path belongs to: `samples[3].source.kind` → `samples[3]`.
    static func item(of field: String) -> String {
        guard let close = field.lastIndex(of: "]") else { return field }
        return String(field[...close])
    }
}

/// A stage of sleep as HealthKit records it.
public enum SleepStage: String, CaseIterable, Codable, Sendable {
    case inBed = "in_bed"
    case awake
    case core
    case deep
    case rem
    /// Asleep without a stage (watches before iOS 16, and most other sources).
    case asleep

    /// Stages that are sleep (an awake or in-bed segment is not).
    public var isAsleep: Bool { self == .core || self == .deep || self == .rem || self == .asleep }
}
