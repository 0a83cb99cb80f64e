import Foundation

/// One stored health item, checked and in lifelog's units: a quantity sample, a sleep segment
/// or a workout. Ingestion events carry these; the samples table holds one row per `key`.
public struct HealthRecord: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case quantity, sleep, workout
    }

    /// The item's identity among its owner's items (see `HealthRecord.key`).
    public var key: String
    /// The client's id (HealthKit's UUID), lowercased, when it sent one.
    public var uuid: String?
    public var kind: Kind
    /// The metric (quantity), the stage (sleep) or the workout's type.
    public var name: String
    /// The value in the metric's unit (quantities only).
    public var value: Double?
    /// Seconds since 1970, whole: HealthKit's sub-second parts are noise here, and whole
    /// seconds make one sample sent by two formats the same item.
    public var startSeconds: Int64
    public var endSeconds: Int64
    /// The local date the item counts for: its start's, or for sleep the night's (DESIGN §4).
    public var date: LocalDate
    public var source: HealthSource
    public var series: HealthIntake.Series
    public var workout: WorkoutFigures?
    /// The lowest and highest reading a value summarises (a heart rate's Min and Max around its
    /// Avg), in the metric's unit; nil for a single reading.
    public var min: Double?
    public var max: Double?

    public struct WorkoutFigures: Codable, Equatable, Sendable {
        public var activeEnergyKcal: Double?
        public var distanceM: Double?
        public var avgHeartRate: Double?
        public init(activeEnergyKcal: Double?, distanceM: Double?, avgHeartRate: Double?) {
            self.activeEnergyKcal = activeEnergyKcal
            self.distanceM = distanceM
            self.avgHeartRate = avgHeartRate
        }
    }

    public init(uuid: String?, kind: Kind, name: String, value: Double?, startSeconds: Int64, endSeconds: Int64,
                date: LocalDate, source: HealthSource, series: HealthIntake.Series, workout: WorkoutFigures? = nil,
                min: Double? = nil, max: Double? = nil) {
        self.init(storedKey: Self.key(kind: kind, name: name, startSeconds: startSeconds, endSeconds: endSeconds, source: source, series: series),
                  uuid: uuid, kind: kind, name: name, value: value, startSeconds: startSeconds, endSeconds: endSeconds, date: date,
                  source: source, series: series, workout: workout, min: min, max: max)
    }

    /// A record as stored, under the key it was stored with.
    public init(storedKey key: String, uuid: String?, kind: Kind, name: String, value: Double?, startSeconds: Int64, endSeconds: Int64,
                date: LocalDate, source: HealthSource, series: HealthIntake.Series, workout: WorkoutFigures? = nil,
                min: Double? = nil, max: Double? = nil) {
        self.key = key
        self.uuid = uuid
        self.kind = kind
        self.name = name
        self.value = value
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.date = date
        self.source = source
        self.series = series
        self.workout = workout
        self.min = min
        self.max = max
    }

    /// The natural identity: what, when and from which source. A client's total for a period
    /// is identified by the period's start alone, so a grown total replaces the earlier one.
    /// The source's kind is left out: formats that guess it from the name may guess differently.
    public static func key(kind: Kind, name: String, startSeconds: Int64, endSeconds: Int64, source: HealthSource,
                           series: HealthIntake.Series) -> String {
        let who = source.name.lowercased()
        switch series {
        case .sample: return "\(kind.rawValue)|\(name)|\(startSeconds)|\(endSeconds)|\(who)"
        case .summary: return "\(kind.rawValue)|\(name)|\(startSeconds)|total|\(who)"
        }
    }

    /// Flat in events: PostgreSQL reads a batch's records with `jsonb_to_recordset`, and nested
    /// objects (the source, a workout's figures) made that four times slower.
    enum CodingKeys: String, CodingKey {
        case key, uuid, kind, name, value, startSeconds, endSeconds, date, sourceName, sourceKind, sourceBundleId, series
        case activeEnergyKcal, distanceM, avgHeartRate, min, max
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        uuid = try container.decodeIfPresent(String.self, forKey: .uuid)
        kind = try container.decode(Kind.self, forKey: .kind)
        name = try container.decode(String.self, forKey: .name)
        value = try container.decodeIfPresent(Double.self, forKey: .value)
        startSeconds = try container.decode(Int64.self, forKey: .startSeconds)
        endSeconds = try container.decode(Int64.self, forKey: .endSeconds)
        date = try container.decode(LocalDate.self, forKey: .date)
        source = HealthSource(name: try container.decode(String.self, forKey: .sourceName),
                              kind: try container.decode(HealthSourceKind.self, forKey: .sourceKind),
                              bundleId: try container.decodeIfPresent(String.self, forKey: .sourceBundleId))
        series = try container.decode(HealthIntake.Series.self, forKey: .series)
        workout = kind == .workout ? WorkoutFigures(
            activeEnergyKcal: try container.decodeIfPresent(Double.self, forKey: .activeEnergyKcal),
            distanceM: try container.decodeIfPresent(Double.self, forKey: .distanceM),
            avgHeartRate: try container.decodeIfPresent(Double.self, forKey: .avgHeartRate)) : nil
        min = try container.decodeIfPresent(Double.self, forKey: .min)
        max = try container.decodeIfPresent(Double.self, forKey: .max)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encodeIfPresent(uuid, forKey: .uuid)
        try container.encode(kind, forKey: .kind)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(value, forKey: .value)
        try container.encode(startSeconds, forKey: .startSeconds)
        try container.encode(endSeconds, forKey: .endSeconds)
        try container.encode(date, forKey: .date)
        try container.encode(source.name, forKey: .sourceName)
        try container.encode(source.kind, forKey: .sourceKind)
        try container.encodeIfPresent(source.bundleId, forKey: .sourceBundleId)
        try container.encode(series, forKey: .series)
        try container.encodeIfPresent(workout?.activeEnergyKcal, forKey: .activeEnergyKcal)
        try container.encodeIfPresent(workout?.distanceM, forKey: .distanceM)
        try container.encodeIfPresent(workout?.avgHeartRate, forKey: .avgHeartRate)
        try container.encodeIfPresent(min, forKey: .min)
        try container.encodeIfPresent(max, forKey: .max)
    }

    public var start: Date { Date(timeIntervalSince1970: TimeInterval(startSeconds)) }
    public var end: Date { Date(timeIntervalSince1970: TimeInterval(endSeconds)) }

    /// True when `other` says something this record does not (a new value for the same item).
    public func differs(from other: HealthRecord) -> Bool {
        value != other.value || workout != other.workout || date != other.date || uuid != other.uuid || min != other.min || max != other.max
            || source != other.source || name != other.name || key != other.key
    }
}
