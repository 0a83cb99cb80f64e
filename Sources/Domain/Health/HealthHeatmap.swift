import Foundation

/// Levels 0–4 per date for a calendar heatmap, against the person's own figures: level 0 is no
/// data (or nothing), 1–4 are the quartiles of their days with data in the range.
public enum HealthHeatmap {
    public struct Cell: Codable, Equatable, Sendable {
        public var date: LocalDate
        public var value: Double?
        public var level: Int
    }

    public static func cells(from: LocalDate, to: LocalDate, values: [LocalDate: Double]) -> [Cell] {
        let positive = values.values.filter { $0 > 0 }.sorted()
        let quartiles = [0.25, 0.5, 0.75].map { quantile(positive, $0) }
        return stride(from: from.daysSinceEpoch, through: to.daysSinceEpoch, by: 1).map { day in
            let date = LocalDate(daysSinceEpoch: day)
            guard let value = values[date], value > 0 else { return Cell(date: date, value: values[date], level: 0) }
            let level = 1 + quartiles.filter { value > $0 }.count
            return Cell(date: date, value: value, level: level)
        }
    }

    /// The linear-interpolation quantile of sorted values (0 when there are none).
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down)), upper = Int(position.rounded(.up))
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}
