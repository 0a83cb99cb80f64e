import Foundation

/// A reminder time of day, `HH:MM` in the user's zone.
public struct LocalTime: Sendable, Equatable, Codable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    public init(hour: Int, minute: Int) {
        self.hour = min(max(hour, 0), 23)
        self.minute = min(max(minute, 0), 59)
    }

    public var description: String { String(zeroPadded: hour, width: 2) + ":" + String(zeroPadded: minute, width: 2) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let time = LocalTime(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not HH:MM"))
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The kinds of reminder a user can switch on (DESIGN §4, Reminders).
public enum ReminderKind: String, Sendable, Codable, CaseIterable {
    case morningDigest = "morning_digest"
    case eveningNudge = "evening_nudge"
    case taskDue = "task_due"
    case savingsPaymentDue = "savings_payment_due"
    /// A habit's own reminder time, on scheduled days it is not yet done.
    case habit
    /// Payment reminders for the shared goals the user is a member of (the owner pays, so off
    /// unless the member asks for them).
    case sharedSavingsPaymentDue = "shared_savings_payment_due"

    /// What a new account starts with: every kind but the one a member opts into.
    public static let defaults = allCases.filter { $0 != .sharedSavingsPaymentDue }
}

/// Everything a user can set about themselves.
public struct UserProfile: Sendable, Equatable, Codable {
    public var email: String
    public var name: String
    public var timezone: String
    public var dayStartHour: Int
    /// ISO weekday the week starts on: 1 = Monday … 7 = Sunday.
    public var weekStart: Int
    public var currency: String
    public var language: Language
    public var morningTime: LocalTime
    public var eveningTime: LocalTime
    public var reminderKinds: [ReminderKind]

    public init(
        email: String, name: String, timezone: String, dayStartHour: Int, weekStart: Int, currency: String,
        language: Language, morningTime: LocalTime, eveningTime: LocalTime, reminderKinds: [ReminderKind]
    ) {
        self.email = email
        self.name = name
        self.timezone = timezone
        self.dayStartHour = dayStartHour
        self.weekStart = weekStart
        self.currency = currency
        self.language = language
        self.morningTime = morningTime
        self.eveningTime = eveningTime
        self.reminderKinds = reminderKinds
    }

    public static func new(email: String, name: String, timezone: String, language: Language?, currency: String?) -> UserProfile {
        UserProfile(
            email: Email.normalize(email), name: name.trimmingCharacters(in: .whitespacesAndNewlines), timezone: timezone,
            dayStartHour: 0, weekStart: 1, currency: currency ?? "EUR", language: language ?? .en,
            morningTime: LocalTime(hour: 8, minute: 0), eveningTime: LocalTime(hour: 20, minute: 0),
            reminderKinds: ReminderKind.defaults)
    }

    /// Every rule a stored profile keeps; field names are the API's. A change's fields are held
    /// to the same rules, one by one, when it is read (`ProfileChange.validated`).
    public func validationErrors() -> [FieldError] {
        [Self.nameError(name), Self.timezoneError(timezone), Self.dayStartHourError(dayStartHour), Self.weekStartError(weekStart),
         Currencies.isValid(currency) ? nil : FieldError("currency", Self.currencyRule)].compactMap { $0 }
    }

    static func nameError(_ name: String) -> FieldError? { TextRules.labelError(name, field: "name", maxLength: 100) }

    static func timezoneError(_ timezone: String) -> FieldError? {
        TimeZones.isValid(timezone) ? nil : FieldError("timezone", "must be an IANA time zone name such as Europe/Belgrade")
    }

    static func dayStartHourError(_ hour: Int) -> FieldError? {
        (0...23).contains(hour) ? nil : FieldError("day_start_hour", "must be from 0 to 23")
    }

    static func weekStartError(_ day: Int) -> FieldError? {
        (1...7).contains(day) ? nil : FieldError("week_start", "must be an ISO weekday from 1 (Monday) to 7 (Sunday)")
    }

    static let currencyRule = "must be an ISO 4217 code such as EUR"
}

public enum Email {
    public static func normalize(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Whether a login's text could be an account's address: one @, a dotted domain, no space
    /// or control character. Deliberately loose: accounts made before the stricter rule for new
    /// addresses (`isValid`) must still be able to log in.
    public static func isPlausible(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email.count <= 254,
              !email.contains(where: { $0.isWhitespace || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } })
        else { return false }
        return !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
    }

    /// An address as RFC 5321 delivers it, in ASCII: a local part of letters, digits, dots (not
    /// first, last or doubled) and the symbols RFC 5322 allows; a domain of at least two labels
    /// of letters, digits and inner hyphens. Internationalized addresses (RFC 6531) are refused:
    /// what the server stores is what `format: email` promises clients. An IDN domain can be
    /// given in its ASCII (punycode) form.
    public static func isValid(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, email.count <= 254 else { return false }
        let local = parts[0], domain = parts[1]
        let symbols = Set("!#$%&'*+/=?^_`{|}~-.")
        guard (1...64).contains(local.count), local.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || symbols.contains($0)) }),
              !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}

public enum TimeZones {
    /// IANA names only: fixed offsets and abbreviations ("+02:00", "CET"-style aliases aside) are refused.
    public static func isValid(_ identifier: String) -> Bool {
        guard TimeZone.knownTimeZoneIdentifiers.contains(identifier) else { return identifier == "UTC" }
        return true
    }
}

public enum Currencies {
    public static func isValid(_ code: String) -> Bool {
        code.count == 3 && code.allSatisfy { $0.isUppercase && $0.isLetter }
            && Locale.commonISOCurrencyCodes.contains(code)
    }
}

public enum Passwords {
    public static let minimumLength = 10

    public static func validationErrors(_ password: String, field: String = "password") -> [FieldError] {
        if password.count < minimumLength { return [FieldError(field, "must be at least \(minimumLength) characters")] }
        // bcrypt reads a C string: a NUL would silently cut the password short.
        if password.contains("\0") { return [FieldError(field, "must not contain NUL characters")] }
        if password.utf8.count > 72 { return [FieldError(field, "must be at most 72 bytes")] }
        return []
    }
}

public enum TextRules {
    /// Control characters (NUL among them) have no place in names and labels, and PostgreSQL
    /// refuses NUL in text and JSON.
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The rule for a name or title (already trimmed): 1 to `maxLength` characters, no control
    /// characters. Nil when it holds.
    public static func labelError(_ text: String, field: String, maxLength: Int) -> FieldError? {
        if text.isEmpty || text.count > maxLength { return FieldError(field, "must be 1 to \(maxLength) characters") }
        if hasControlCharacters(text) { return FieldError(field, "must not contain control characters") }
        return nil
    }

    /// An optional short label (an emoji, a unit, a reason): at most `maxLength` characters and
    /// no control characters when present.
    public static func optionalLabelError(_ text: String?, field: String, maxLength: Int) -> FieldError? {
        guard let text else { return nil }
        if text.count > maxLength { return FieldError(field, "must be at most \(maxLength) characters") }
        if hasControlCharacters(text) { return FieldError(field, "must not contain control characters") }
        return nil
    }
}
