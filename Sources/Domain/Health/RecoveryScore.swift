import Foundation

/// The recovery score of one local date, formula `recovery-v1` (DESIGN §4, "recovery-v1"):
/// sleep, HRV and resting heart rate, each against the user's own as-of baseline.
public struct RecoveryScore: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Sendable, CaseIterable {
        case good, fair, poor, unscorable, calibrating

        public var colorToken: String {
            switch self {
            case .good: "ds.semantic.positive"
            case .fair: "ds.semantic.warning"
            case .poor: "ds.semantic.negative"
            case .unscorable, .calibrating: "ds.semantic.neutral"
            }
        }

        /// From the rounded score: good ≥ 67.0, fair ≥ 34.0, else poor.
        public static func of(score: Double) -> Status {
            score >= 67 ? .good : score >= 34 ? .fair : .poor
        }
    }

    public var date: LocalDate
    /// One decimal, rounded half-even; nil when fewer than two components are usable.
    public var score: Double?
    public var status: Status
    public var formulaVersion: String
    /// Calibrating only: days until enough baseline days make a score possible.
    public var daysUntilReady: Int?
    public var components: [RecoveryComponent]
}

public struct RecoveryComponent: Codable, Equatable, Sendable {
    public enum Key: String, Codable, Sendable, CaseIterable {
        case sleep, hrv
        case restingHeartRate = "resting_heart_rate"
    }

    public enum Reason: String, Codable, Sendable {
        /// No figure for the date.
        case noData = "no_data"
        /// A figure, but fewer than `RecoveryFormula.minimumBaselineDays` days of baseline.
        case calibrating
    }

    public var key: Key
    /// The date's figure, in `unit` (HRV as ln of the day's mean SDNN in ms, as the formula uses it).
    public var value: Double?
    public var unit: String
    public var baselineMean: Double?
    public var baselineSd: Double?
    /// Days with data among the 60 before the date.
    public var baselineDays: Int
    /// The raw (x − mean) / sd, not negated for resting heart rate; 0 when sd is 0.
    public var z: Double?
    public var score: Double?
    /// The weight after renormalising over the available components; 0 when not available.
    public var weightUsed: Double
    public var available: Bool
    public var reason: Reason?
}

/// What the formula reads for a user: per local date, the night's asleep minutes, the day's
/// mean HRV SDNN (ms) and mean resting heart rate (count/min), as the day read models hold them.
public struct RecoveryInputs: Codable, Equatable, Sendable {
    public var sleepMinutes: [LocalDate: Double]
    public var hrvMs: [LocalDate: Double]
    public var restingHeartRate: [LocalDate: Double]

    public init(sleepMinutes: [LocalDate: Double] = [:], hrvMs: [LocalDate: Double] = [:], restingHeartRate: [LocalDate: Double] = [:]) {
        self.sleepMinutes = sleepMinutes
        self.hrvMs = hrvMs
        self.restingHeartRate = restingHeartRate
    }

    /// True when the date has a figure for any component (only such dates get a stored score).
    public func hasData(on date: LocalDate) -> Bool {
        sleepMinutes[date] != nil || hrvMs[date] != nil || restingHeartRate[date] != nil
    }
}

public enum RecoveryFormula {
    public static let version = "recovery-v1"
    public static let baselineLength = HealthBaseline.length
    public static let minimumBaselineDays = 7
    public static let weights: [RecoveryComponent.Key: Double] = [.sleep: 0.40, .hrv: 0.35, .restingHeartRate: 0.25]
    /// Asleep minutes that score 100.
    public static let sleepTargetMinutes = 480.0

    /// The piecewise map of a z-score to 0…100: z ≤ −3 → 0; −3…−2 → 0…40; −2…0 → 40…70;
    /// 0…2 → 70…100; z ≥ 2 → 100, linear in each piece.
    public static func map(_ z: Double) -> Double {
        switch z {
        case ...(-3): 0
        case ..<(-2): 40 * (z + 3)
        case ..<0: 40 + 15 * (z + 2)
        case ..<2: 70 + 15 * z
        default: 100
        }
    }

    /// One decimal, half-even (as money shares are rounded).
    public static func rounded(_ value: Double) -> Double {
        (value * 10).rounded(.toNearestOrEven) / 10
    }

    /// The score for `date` from `inputs`, whose baselines are the 60 dates before it. Without
    /// `ownFigures` the date's own figures are ignored: a date with no data, baselines only.
    public static func score(date: LocalDate, inputs: RecoveryInputs, ownFigures: Bool = true) -> RecoveryScore {
        var components = [
            component(.sleep, date: date, series: inputs.sleepMinutes, transform: { $0 }, unit: "min", own: ownFigures),
            component(.hrv, date: date, series: inputs.hrvMs, transform: { $0 > 0 ? log($0) : nil }, unit: "ln(ms)", own: ownFigures),
            component(.restingHeartRate, date: date, series: inputs.restingHeartRate, transform: { $0 }, unit: "count/min", own: ownFigures),
        ]
        let available = components.filter(\.available)
        let totalWeight = available.reduce(0) { $0 + (weights[$1.key] ?? 0) }
        for index in components.indices where components[index].available {
            components[index].weightUsed = (weights[components[index].key] ?? 0) / totalWeight
        }
        if available.count >= 2 {
            let weighted = components.reduce(0) { $0 + $1.weightUsed * ($1.score ?? 0) }
            let score = rounded(weighted)
            return RecoveryScore(date: date, score: score, status: .of(score: score), formulaVersion: version, daysUntilReady: nil,
                                 components: components)
        }
        // Not enough: calibrating when components held back only by a short baseline would,
        // once their baselines fill, make the two a score needs.
        let deficits = components.filter { $0.reason == .calibrating }.map { minimumBaselineDays - $0.baselineDays }.sorted()
        let missing = 2 - available.count
        if deficits.count >= missing {
            return RecoveryScore(date: date, score: nil, status: .calibrating, formulaVersion: version,
                                 daysUntilReady: deficits[missing - 1], components: components)
        }
        return RecoveryScore(date: date, score: nil, status: .unscorable, formulaVersion: version, daysUntilReady: nil, components: components)
    }

    /// A component for `date`: its figure, its baseline over the 60 dates before (figures
    /// passed through `transform`), z and its 0…100 score.
    static func component(
        _ key: RecoveryComponent.Key, date: LocalDate, series: [LocalDate: Double], transform: (Double) -> Double?, unit: String, own: Bool = true
    ) -> RecoveryComponent {
        let baseline = HealthBaseline.values(series, before: date, transform: transform)
        let mean = HealthBaseline.mean(baseline)
        let sd: Double? = mean.flatMap { mean in
            guard baseline.count >= 2 else { return nil }
            let sd = (baseline.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(baseline.count - 1)).squareRoot()
            // Equal figures in ln space leave rounding noise (1e-16), not 0: that is a flat baseline.
            return sd <= 1e-9 * max(1, abs(mean)) ? 0 : sd
        }
        let value = own ? series[date].flatMap(transform) : nil
        let z: Double? = value.flatMap { value in
            guard let mean, let sd else { return nil }
            return sd == 0 ? 0 : (value - mean) / sd
        }
        var result = RecoveryComponent(key: key, value: value, unit: unit, baselineMean: mean, baselineSd: sd, baselineDays: baseline.count,
                                       z: z, score: nil, weightUsed: 0, available: false, reason: nil)
        guard let value else {
            result.reason = .noData
            return result
        }
        switch key {
        case .sleep:
            // Sleep scores against a fixed need, not the baseline: it is usable from the first night.
            result.score = min(100, 100 * value / sleepTargetMinutes)
        case .hrv, .restingHeartRate:
            guard baseline.count >= minimumBaselineDays, let z else {
                result.reason = .calibrating
                return result
            }
            result.score = map(key == .hrv ? z : -z)
        }
        result.available = true
        return result
    }

    /// The dates whose score reads `changed`'s figures: the date itself and the 60 after it.
    public static func affectedDates(by changed: LocalDate) -> ClosedRange<Int> {
        changed.daysSinceEpoch...(changed.daysSinceEpoch + baselineLength)
    }
}
