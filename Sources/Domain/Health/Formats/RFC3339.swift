import Foundation

/// Instants written as RFC 3339 (`2024-01-15T07:00:00Z`, `2024-01-15T07:00:00.123+01:00`), read
/// by hand: Foundation's ISO 8601 parsing on Linux refuses fractional seconds unless told, and
/// costs microseconds an instant, which a batch of 5,000 samples would feel.
public enum RFC3339 {
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ from: Int, _ length: Int) -> Int? {
            guard from + length <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + length] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == 45, let month = number(5, 2), bytes[7] == 45, let day = number(8, 2),
              bytes[10] == 84 || bytes[10] == 116 || bytes[10] == 32,
              let hour = number(11, 2), bytes[13] == 58, let minute = number(14, 2), bytes[16] == 58, let second = number(17, 2),
              let date = LocalDate(year: year, month: month, day: day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 90, 122:  // Z, z
            guard index + 1 == bytes.count else { return nil }
        case 43, 45:  // +, -
            guard index + 6 == bytes.count, let hours = number(index + 1, 2), bytes[index + 3] == 58,
                  let minutes = number(index + 4, 2), hours < 24, minutes < 60 else { return nil }
            offset = (hours * 3_600 + minutes * 60) * (bytes[index] == 43 ? 1 : -1)
        default:
            return nil
        }
        let seconds = date.daysSinceEpoch * 86_400 + hour * 3_600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }
}
