import Foundation

/// The fields of one JSON object of an import (as `JSONSerialization` reads it), each read as
/// the type it must be, or refused with its name and what it must be. `null` and absent are the
/// same: nil for the optional readers, "is required" for the others.
struct LineFields {
    let json: [String: Any]
    /// Put before each field's name in a reason (`schedules[1].`).
    let prefix: String

    init(_ json: [String: Any], prefix: String = "") {
        self.json = json
        self.prefix = prefix
    }

    typealias Unreadable = LifelogImportLine.Unreadable

    func refuse(_ key: String, _ message: String) -> Unreadable { Unreadable("\(prefix)\(key): \(message)") }

    func present(_ key: String) -> Any? {
        guard let value = json[key], !(value is NSNull) else { return nil }
        return value
    }

    func string(_ key: String) throws(Unreadable) -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value as? String else { throw refuse(key, "must be a string") }
        return text
    }

    func required(_ key: String) throws(Unreadable) -> String {
        guard let text = try string(key) else { throw refuse(key, "is required") }
        return text
    }

    func strings(_ key: String) throws(Unreadable) -> [String]? {
        guard let value = present(key) else { return nil }
        guard let texts = value as? [String] else { throw refuse(key, "must be a list of strings") }
        return texts
    }

    func bool(_ key: String) throws(Unreadable) -> Bool {
        guard let value = present(key) else { return false }
        // JSONSerialization reads true as an NSNumber; only a real boolean is one.
        guard let number = value as? NSNumber, CFBooleanLike.isBoolean(number) else {
            throw refuse(key, "must be true or false")
        }
        return number.boolValue
    }

    func optionalDouble(_ key: String) throws(Unreadable) -> Double? {
        guard let value = present(key) else { return nil }
        guard let number = value as? NSNumber, !CFBooleanLike.isBoolean(number), number.doubleValue.isFinite else { throw refuse(key, "must be a number") }
        return number.doubleValue
    }

    func double(_ key: String) throws(Unreadable) -> Double {
        guard let value = try optionalDouble(key) else { throw refuse(key, "is required") }
        return value
    }

    func optionalInt(_ key: String) throws(Unreadable) -> Int? {
        guard let value = try optionalDouble(key) else { return nil }
        guard value == value.rounded(), abs(value) < 1e15 else { throw refuse(key, "must be a whole number") }
        return Int(value)
    }

    func int(_ key: String) throws(Unreadable) -> Int {
        guard let value = try optionalInt(key) else { throw refuse(key, "is required") }
        return value
    }

    /// A number kept exactly as written: the shortest decimal that reads back as it.
    func decimal(_ key: String) throws(Unreadable) -> Decimal? {
        guard let value = try optionalDouble(key) else { return nil }
        guard let decimal = Decimal(string: String(value), locale: Locale(identifier: "en_US_POSIX")) else { throw refuse(key, "must be a number") }
        return decimal
    }

    func optionalUUID(_ key: String) throws(Unreadable) -> UUID? {
        guard let text = try string(key) else { return nil }
        guard let id = UUID(uuidString: text) else { throw refuse(key, "must be a UUID") }
        return id
    }

    func uuid(_ key: String) throws(Unreadable) -> UUID {
        guard let id = try optionalUUID(key) else { throw refuse(key, "is required") }
        return id
    }

    func optionalDate(_ key: String) throws(Unreadable) -> LocalDate? {
        guard let text = try string(key) else { return nil }
        guard let date = LocalDate(input: text) else { throw refuse(key, LocalDate.inputRule) }
        return date
    }

    func date(_ key: String) throws(Unreadable) -> LocalDate {
        guard let date = try optionalDate(key) else { throw refuse(key, "is required") }
        return date
    }

    /// A month, written `YYYY-MM` or as its first day (`YYYY-MM-01`, as the export writes months kept as dates).
    func optionalMonth(_ key: String) throws(Unreadable) -> LocalMonth? {
        guard let text = try string(key) else { return nil }
        if let month = LocalMonth(text) { return month }
        guard let date = LocalDate(input: text), date.day == 1 else { throw refuse(key, "must be a month as YYYY-MM") }
        return LocalMonth(date)
    }

    func month(_ key: String) throws(Unreadable) -> LocalMonth {
        guard let month = try optionalMonth(key) else { throw refuse(key, "is required") }
        return month
    }

    /// An instant as RFC 3339 (the export writes UTC, `2026-03-09T07:00:00Z`).
    func instant(_ key: String) throws(Unreadable) -> Date {
        let text = try required(key)
        guard let date = RFC3339.parse(text) else { throw refuse(key, "must be an instant as RFC 3339") }
        return date
    }

    func objects(_ key: String) throws(Unreadable) -> [[String: Any]] {
        guard let value = present(key) else { return [] }
        guard let objects = value as? [[String: Any]] else { throw refuse(key, "must be a list of objects") }
        return objects
    }

    /// A nested value read by its own `Decodable` (a schedule, a task's repeat).
    func optionalDecoded<T: Decodable>(_ type: T.Type, _ key: String) throws(Unreadable) -> T? {
        guard let value = present(key) else { return nil }
        do {
            let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw refuse(key, "is not a \(String(describing: T.self).lowercased()) lifelog reads")
        }
    }

    func decoded<T: Decodable>(_ type: T.Type, _ key: String) throws(Unreadable) -> T {
        guard let value = try optionalDecoded(type, key) else { throw refuse(key, "is required") }
        return value
    }

    /// A draft read into its typed input as the API reads a request body (`ValidatedInput`).
    func validated<Input: ValidatedInput>(_ type: Input.Type, _ draft: Input.Draft) throws(Unreadable) -> Input {
        switch Input.validated(from: draft) {
        case .success(let input): return input
        case .failure(let failure): throw Unreadable(failure.errors.map { "\(prefix)\($0.field): \($0.message)" }.joined(separator: "; "))
        }
    }
}

/// Whether an `NSNumber` that JSONSerialization made is a boolean (Linux's Foundation has no
/// CFBoolean type to compare with).
enum CFBooleanLike {
    static func isBoolean(_ number: NSNumber) -> Bool {
        type(of: number) == type(of: NSNumber(value: true))
    }
}
