import Foundation

/// A metric's figure for one local date, as `GET /health/daily` answers it.
public struct HealthDay: Codable, Equatable, Sendable {
    public enum DecidedBy: String, Codable, Sendable {
        case samples, manual, summary
    }

    public var date: LocalDate
    public var metric: HealthMetric
    /// The day's figure: the sum (cumulative metrics), the mean, or the last reading.
    public var value: Double
    public var min: Double?
    public var max: Double?
    public var source: String?
    public var samples: Int
    public var decidedBy: DecidedBy

    public init(date: LocalDate, metric: HealthMetric, value: Double, min: Double? = nil, max: Double? = nil,
                source: String?, samples: Int, decidedBy: DecidedBy) {
        self.date = date
        self.metric = metric
        self.value = value
        self.min = min
        self.max = max
        self.source = source
        self.samples = samples
        self.decidedBy = decidedBy
    }

    /// What the day's figure is made of: a manual value wins, then samples, then a client's
    /// totals (DESIGN §4; the "manual, then per-sample data, then a summary").
    public static func figure(
        metric: HealthMetric, date: LocalDate, samples: [CumulativeCredit.Sample], summaries: [CumulativeCredit.Sample],
        manual: Double?, priority: HealthSourcePriority
    ) -> HealthDay? {
        if let manual {
            return HealthDay(date: date, metric: metric, value: manual, source: HealthSourceKind.manual.rawValue, samples: 0, decidedBy: .manual)
        }
        if !samples.isEmpty {
            switch metric.dailyRule {
            case .cumulative:
                let total = CumulativeCredit.total(samples, priority: priority)
                return HealthDay(date: date, metric: metric, value: total.value, source: total.source?.name,
                                 samples: total.samples, decidedBy: .samples)
            case .mean:
                // One source's readings: a watch and a ring measure differently, and a mean of
                // both would be neither. The highest-priority source with readings that day.
                guard let source = samples.map(\.source).min(by: priority.precedes) else { return nil }
                let own = samples.filter { $0.source == source }
                let values = own.map(\.value)
                // A reading that summarises several (Health Auto Export's Min/Avg/Max) brings its own extremes.
                return HealthDay(date: date, metric: metric, value: values.reduce(0, +) / Double(values.count),
                                 min: own.map { $0.min ?? $0.value }.min(), max: own.map { $0.max ?? $0.value }.max(),
                                 source: source.name, samples: values.count, decidedBy: .samples)
            case .last:
                guard let last = samples.max(by: { lhs, rhs in
                    lhs.endSeconds != rhs.endSeconds ? lhs.endSeconds < rhs.endSeconds : priority.precedes(rhs.source, lhs.source)
                }) else { return nil }
                return HealthDay(date: date, metric: metric, value: last.value, source: last.source.name, samples: samples.count, decidedBy: .samples)
            }
        }
        // A client's totals: the highest-priority source that sent any, its periods summed.
        guard let source = summaries.map(\.source).min(by: priority.precedes) else { return nil }
        let own = summaries.filter { $0.source == source }
        let value: Double
        switch metric.dailyRule {
        case .cumulative: value = own.map(\.value).reduce(0, +)
        case .mean: value = own.map(\.value).reduce(0, +) / Double(own.count)
        case .last: value = own.max { $0.endSeconds < $1.endSeconds }?.value ?? 0
        }
        return HealthDay(date: date, metric: metric, value: value, source: source.name, samples: own.count, decidedBy: .summary)
    }
}
