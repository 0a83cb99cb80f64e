import Domain
import Foundation

/// One export line built here rather than by PostgreSQL, for the parts with millions of rows
/// (health records, habit logs): `json_build_object` costs about three times what reading the
/// row does, and a decade of minute-level heart rate is five million rows. The same shape as
/// the lines PostgreSQL writes (`ExportQueries`): `type` first, the API's names, null for absent.
struct ExportLine {
    private(set) var text: String

    init(type: String) {
        text = #"{"type":""# + type + "\""
        text.reserveCapacity(256)
    }

    mutating func string(_ key: String, _ value: String?) {
        text += ",\"" + key + "\":"
        if let value { Self.quote(value, into: &text) } else { text += "null" }
    }

    mutating func number(_ key: String, _ value: Double?) {
        text += ",\"" + key + "\":"
        guard let value, value.isFinite else { text += "null"; return }
        // Whole figures as integers, as PostgreSQL and the API print them.
        if value == value.rounded(), abs(value) < 1e15 { text += String(Int64(value)) } else { text += String(value) }
    }

    /// Already JSON (a number PostgreSQL printed), or null.
    mutating func raw(_ key: String, _ json: String?) {
        text += ",\"" + key + "\":" + (json ?? "null")
    }

    mutating func date(_ key: String, daysSinceEpoch days: Int32) {
        text += ",\"" + key + "\":\"" + LocalDate(daysSinceEpoch: Int(days)).description + "\""
    }

    /// Seconds since 1970 as UTC ISO 8601 (`2026-03-09T07:00:00Z`).
    mutating func instant(_ key: String, seconds: Int64) {
        let (days, second) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, time) = second < 0 ? (days - 1, second + 86_400) : (days, second)
        text += ",\"" + key + "\":\"" + LocalDate(daysSinceEpoch: Int(day)).description + "T"
            + String(zeroPadded: Int(time / 3_600), width: 2) + ":" + String(zeroPadded: Int(time / 60 % 60), width: 2) + ":"
            + String(zeroPadded: Int(time % 60), width: 2) + "Z\""
    }

    func finished() -> String { text + "}" }

    /// JSON's string escaping (RFC 8259): the quote, the backslash and control characters.
    static func quote(_ value: String, into text: inout String) {
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            text += "\"" + value + "\""
            return
        }
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += "\\u" + String(zeroPaddedHex: scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

private extension String {
    init(zeroPaddedHex value: UInt32) {
        let digits = String(value, radix: 16)
        self = String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}
