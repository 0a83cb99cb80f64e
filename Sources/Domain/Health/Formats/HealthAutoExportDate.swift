import Foundation

/// Dates as Health Auto Export writes them: `2024-01-15 07:00:00 -0500`, the 12-hour form
/// `2024-01-15 7:00:00 AM -0500` (newer iOS puts U+202F before AM/PM), and date-only
/// `2024-01-15` for a night's summary. Read by hand: DateFormatter is slow and locale-bound.
public enum HealthAutoExportDate {
    /// An instant; nil for anything else (a date-only value has no instant).
    public static func instant(_ text: String) -> Date? {
        // Apple's export writes a million of these in one form; the general path below splits strings.
        var text = text
        if let seconds = text.withUTF8(canonicalSeconds) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        // RFC 3339 too: clients that reuse this envelope (Pulse's webhook) may write it.
        if text.utf8.count >= 20, text.utf8.dropFirst(10).first == UInt8(ascii: "T") { return RFC3339.parse(text) }
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

    /// Seconds since 1970 of exactly `yyyy-MM-dd HH:mm:ss ±hhmm`, read from its bytes; nil for
    /// any other form (the general path reads those) or an impossible date.
    static func canonicalSeconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count == 25, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A,
              bytes[19] == 0x20, bytes[20] == 0x2B || bytes[20] == 0x2D else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for index in from..<(from + count) {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = digits(0, 4), year >= 1, let month = digits(5, 2), let day = digits(8, 2),
              let date = LocalDate(year: year, month: month, day: day),
              let hour = digits(11, 2), hour < 24, let minute = digits(14, 2), minute < 60, let second = digits(17, 2), second <= 60,
              let offsetHours = digits(21, 2), offsetHours < 24, let offsetMinutes = digits(23, 2), offsetMinutes < 60 else { return nil }
        let offset = (offsetHours * 3_600 + offsetMinutes * 60) * (bytes[20] == 0x2B ? 1 : -1)
        return date.daysSinceEpoch * 86_400 + hour * 3_600 + minute * 60 + min(second, 59) - offset
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
