import Foundation

/// A person's own baseline: their figures on the dates before a day (the day itself excluded),
/// the window the recovery score, the briefing's deltas and the trends all compare against.
public enum HealthBaseline {
    public static let length = 60

    /// The figures on the `days` dates before `date`, passed through `transform` (nil drops one).
    public static func values(_ series: [LocalDate: Double], before date: LocalDate, days: Int = length,
                              transform: (Double) -> Double? = { $0 }) -> [Double] {
        (1...max(days, 1)).compactMap { series[date.adding(days: -$0)].flatMap(transform) }
    }

    public static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}
