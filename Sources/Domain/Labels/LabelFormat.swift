import Foundation

/// Numbers, durations and plurals as each language writes them, and `{name}` templates from the
/// catalogue filled with them. No locale data from the system: the same text on every machine.
public enum LabelFormat {
    /// A whole number with the language's thousands separator: 8,432 / 8 432 / 8.432.
    public static func integer(_ value: Double, _ language: Language) -> String {
        let rounded = value.rounded()
        guard rounded.isFinite, abs(rounded) < 1e15 else { return "—" }
        let digits = String(Int64(abs(rounded)))
        let separator = switch language {
        case .en: ","
        case .ru: "\u{00A0}"
        case .sr: "."
        }
        var grouped = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += separator }
            grouped.append(character)
        }
        return (rounded < 0 ? "−" : "") + grouped
    }

    /// One decimal with the language's decimal mark: 82.0 / 82,0.
    public static func tenths(_ value: Double, _ language: Language) -> String {
        let tenths = Int64((abs(value) * 10).rounded(.toNearestOrEven))
        let mark = language == .en ? "." : ","
        return (value < 0 && tenths != 0 ? "−" : "") + integer(Double(tenths / 10), language) + mark + String(tenths % 10)
    }

    /// Minutes as hours and minutes: "7 h 12 min", "7 ч 12 мин".
    public static func duration(minutes: Double, _ language: Language) -> String {
        let total = Int(abs(minutes).rounded())
        let (hours, rest) = (total / 60, total % 60)
        let (h, m) = (LabelCatalogue.text("unit.hours_short", language), LabelCatalogue.text("unit.minutes_short", language))
        if hours == 0 { return "\(rest) \(m)" }
        return rest == 0 ? "\(hours) \(h)" : "\(hours) \(h) \(rest) \(m)"
    }

    public enum PluralCategory: String {
        case one, few, many
    }

    /// CLDR's cardinal categories for whole numbers: English one/other; Russian and Serbian
    /// one (1, 21, …), few (2–4, 22–24, …) and many (the rest).
    public static func plural(_ count: Int, _ language: Language) -> PluralCategory {
        let n = abs(count)
        switch language {
        case .en:
            return n == 1 ? .one : .many
        case .ru, .sr:
            if n % 10 == 1, n % 100 != 11 { return .one }
            if (2...4).contains(n % 10), !(12...14).contains(n % 100) { return .few }
            return .many
        }
    }

    /// "3 days", "3 дня", "3 dana".
    public static func days(_ count: Int, _ language: Language) -> String {
        "\(count) " + LabelCatalogue.text("unit.day.\(plural(count, language).rawValue)", language)
    }

    /// The catalogue's template `key` with each `{name}` replaced, in one pass: a value that
    /// itself holds braces (a device's name) is never read as a placeholder.
    public static func fill(_ key: String, _ language: Language, _ values: [String: String]) -> String {
        let template = LabelCatalogue.text(key, language)
        var text = "", rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            text += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            text += values[name] ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }
}
