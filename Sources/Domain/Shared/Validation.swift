/// A rule broken by one field of a request, said in words a person can act on.
public struct FieldError: Sendable, Equatable, Codable {
    public var field: String
    public var message: String
    public init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }
}

/// A command that breaks one or more rules; nothing of it is applied.
public struct ValidationFailure: Error, Sendable, Equatable {
    public var errors: [FieldError]
    public init(_ errors: [FieldError]) { self.errors = errors }
    public init(_ field: String, _ message: String) { self.errors = [FieldError(field, message)] }

    /// Throws when `errors` is not empty.
    public static func check(_ errors: [FieldError]) throws(ValidationFailure) {
        if !errors.isEmpty { throw ValidationFailure(errors) }
    }
}

/// A command's typed input (enums, `LocalDate`, amounts), read from what a client sent: the
/// `Draft`, strings as received. `validated(from:)` checks every rule the draft alone decides and
/// answers either the typed value or every wrong field at once; the API calls it at the edge, so
/// a decider only ever sees typed input and checks what needs its state or today.
public protocol ValidatedInput: Sendable {
    associatedtype Draft: Decodable & Sendable
    static func validated(from draft: Draft) -> Result<Self, ValidationFailure>
}

/// The errors found while reading a draft, so that one answer names every wrong field.
public struct FieldErrors: Sendable {
    public private(set) var errors: [FieldError] = []
    public init() {}

    public mutating func add(_ error: FieldError?) { error.map { errors.append($0) } }
    public mutating func add(_ more: [FieldError]) { errors += more }

    /// `raw` read by `parse`; nil, with `field`'s `rule` noted, when it does not read. Absent stays nil.
    public mutating func parse<T>(_ raw: String?, field: String, rule: String, _ parse: (String) -> T?) -> T? {
        guard let raw else { return nil }
        guard let value = parse(raw) else {
            errors.append(FieldError(field, rule))
            return nil
        }
        return value
    }

    /// A patch field's new value read by `parse`: `keep` and `clear` pass as they are.
    public mutating func parse<T: Sendable>(_ raw: PatchField<String>, field: String, rule: String, _ parse: (String) -> T?) -> PatchField<T> {
        switch raw {
        case .keep: return .keep
        case .clear: return .clear
        case .set(let text): return self.parse(text, field: field, rule: rule, parse).map { .set($0) } ?? .keep
        }
    }

    /// `raw` read by `read`, which says itself what is wrong (an amount has several rules); nil,
    /// with its errors noted, when it does not read. Absent stays nil.
    public mutating func read<T>(_ raw: String?, _ read: (String) throws(ValidationFailure) -> T) -> T? {
        guard let raw else { return nil }
        do { return try read(raw) } catch { errors += error.errors; return nil }
    }

    /// A patch field's new value read by `read`: `keep` and `clear` pass as they are.
    public mutating func read<T: Sendable>(_ raw: PatchField<String>, _ read: (String) throws(ValidationFailure) -> T) -> PatchField<T> {
        switch raw {
        case .keep: return .keep
        case .clear: return .clear
        case .set(let text): return self.read(text, read).map { .set($0) } ?? .keep
        }
    }

    /// `value()` when no error was found; every error otherwise.
    public func result<T>(_ value: () -> T?) -> Result<T, ValidationFailure> {
        guard errors.isEmpty, let value = value() else { return .failure(ValidationFailure(errors)) }
        return .success(value)
    }
}

extension LocalDate {
    /// A date a client sent (`LocalDate.accepted`), or nil.
    public static func input(_ text: String) -> LocalDate? { LocalDate(input: text) }
}

extension LocalTime {
    public static let inputRule = "must be a time of day as HH:MM"
}
