import Foundation

/// Dates as Health Auto Export writes them: `2024-01-15 07:00:00 -0500`, the 12-hour form
/// `2024-01-15 7:00:00 AM -0500` (newer iOS puts U+202F before AM/PM), and date-only
/// `2024-01-15` for a night's summary. Read by hand: DateFormatter is slow and locale-bound.
public enum HealthAutoExportDate {
    /// An instant; nil for anything else (a date-only value has no instant).
    public static func instant(_ text: String) -> Date? {
        // Any kind of space separates the parts (U+202F, U+00A0, several spaces).
        let parts = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard parts.count == 3 || parts.count == 4, let day = date(parts[0]) else { return nil }
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3 || time.count == 2, var hour = Int(time[0]), let minute = Int(time[1]),
              let second = time.count == 3 ? Int(time[2].prefix(2)) : 0,
              (0...59).contains(minute), (0...60).contains(second) else { return nil }
        if parts.count == 4 {
            switch parts[2].uppercased().replacingOccurrences(of: ".", with: "") {
            case "AM": guard (1...12).contains(hour) else { return nil }; hour = hour == 12 ? 0 : hour
            case "PM": guard (1...12).contains(hour) else { return nil }; hour = hour == 12 ? 12 : hour + 12
            default: return nil
            }
        }
        guard (0...23).contains(hour), let offset = offset(parts[parts.count - 1]) else { return nil }
        let seconds = day.daysSinceEpoch * 86_400 + hour * 3_600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `yyyy-MM-dd`, alone or as the start of a longer value.
    public static func date(_ text: String) -> LocalDate? {
        LocalDate(String(text.prefix(10)))
    }

    /// `-0500`, `+0130`, `+05:30` or `Z` in seconds east of UTC.
    static func offset(_ text: String) -> Int? {
        if text == "Z" || text == "UTC" || text == "GMT" { return 0 }
        let digits = text.dropFirst().replacingOccurrences(of: ":", with: "")
        guard let sign = text.first, sign == "+" || sign == "-", digits.count == 4, let value = Int(digits) else { return nil }
        let seconds = (value / 100) * 3_600 + (value % 100) * 60
        guard value % 100 < 60, value / 100 < 24 else { return nil }
        return sign == "+" ? seconds : -seconds
    }
}
