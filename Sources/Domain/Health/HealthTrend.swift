import Foundation

/// A metric over the last `days` days against the period before and the 60-day baseline.
public struct HealthTrend: Codable, Equatable, Sendable {
    public var metric: HealthMetric
    public var unit: String
    public var days: Int
    public var from: LocalDate
    public var to: LocalDate
    /// Means over days with data; nil when the period has none.
    public var mean: Double?
    public var previousMean: Double?
    public var change: Double?
    public var changePercent: Double?
    public var baselineMean: Double?
    public var baselineDays: Int

    public static let baselineLength = HealthBaseline.length

    /// The periods end on `today` (included); the baseline is the 60 dates before the period.
    public static func compute(metric: HealthMetric, days: Int, today: LocalDate, values: [LocalDate: Double]) -> HealthTrend {
        let from = today.adding(days: -(days - 1))
        let previousFrom = from.adding(days: -days)
        func mean(_ start: LocalDate, _ count: Int) -> (Double?, Int) {
            let found = (0..<count).compactMap { values[start.adding(days: $0)] }
            return (found.isEmpty ? nil : found.reduce(0, +) / Double(found.count), found.count)
        }
        let current = mean(from, days).0
        let previous = mean(previousFrom, days).0
        let before = HealthBaseline.values(values, before: from)
        let baseline = (HealthBaseline.mean(before), before.count)
        let change = current.flatMap { current in previous.map { current - $0 } }
        let percent = change.flatMap { change in previous.flatMap { $0 == 0 ? nil : change / $0 * 100 } }
        return HealthTrend(metric: metric, unit: metric.unit, days: days, from: from, to: today, mean: current,
                           previousMean: previous, change: change, changePercent: percent, baselineMean: baseline.0, baselineDays: baseline.1)
    }
}
