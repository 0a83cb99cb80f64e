import Domain
import Foundation
import Hummingbird

struct StrictBody<Value: Decodable>: Decodable {
    var value: Value
    init(from decoder: any Decoder) throws { value = try Value(from: StrictDecoder(decoder)) }
}

/// JSONDecoder's decoder, holding what a DTO reads to the rules the document states for every
/// request body, in one place rather than in each DTO:
/// - `null` only where the DTO asks for it (`decodeNil`, as `decodePatch` and `decodeNullable`
///   do for fields the document marks nullable): an optional field sent as `null` is a 422
///   ("must not be null"), not silently the same as absent, which in a PATCH would read as a
///   clear that did nothing;
/// - no NUL and no half of a UTF-16 surrogate pair in a string it reads (nothing can store them).
/// Everything else is JSONDecoder's own work; a type it reads in a way of its own (Decimal from
/// the number's text, dates, string-keyed maps, whose keys it does not convert) is left to it.
struct StrictDecoder: Decoder {
    let base: any Decoder
    init(_ base: any Decoder) { self.base = base }

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(StrictKeyedContainer(base: try base.container(keyedBy: type)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.unkeyedContainer())
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        StrictSingleValueContainer(base: try base.singleValueContainer(), decoder: self)
    }

    /// Types JSONDecoder reads in a way of its own: decoded by it, not through this decoder.
    static func decodedByBase(_ type: Any.Type) -> Bool {
        type == Decimal.self || type == Date.self || type == Data.self || type == URL.self || type is any StringKeyedMap.Type
    }

    /// A look at a value (a string, or whether it is null) as JSONDecoder takes it: it unescapes
    /// a string only when it is read, and on text it cannot unescape throws its own parser's
    /// error (which leaves it as corrupt data at the root, naming nothing). StrictJSON passed the
    /// syntax, so that text holds half of a surrogate pair: named here.
    static func reading<T>(at path: [any CodingKey], _ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error where !(error is DecodingError) && !(error is StrictJSON.Issue) {
            throw StrictJSON.Issue.field(path: ProblemMapping.field(path), message: "contains half of a UTF-16 surrogate pair")
        }
    }

    /// A string as read: refused when nothing could keep it as sent.
    static func checked(_ read: () throws -> String, at path: [any CodingKey]) throws -> String {
        let text = try reading(at: path, read)
        if text.unicodeScalars.contains("\u{0}") {
            throw StrictJSON.Issue.field(path: ProblemMapping.field(path), message: "contains a NUL character")
        }
        return text
    }

    /// A value JSONDecoder reads itself; a number no Decimal holds (1e400, 5e-324) is named, as
    /// out of range, where JSONDecoder names nothing.
    static func decimal<T>(_ type: T.Type, at path: [any CodingKey], _ read: () throws -> T) throws -> T {
        guard type == Decimal.self else { return try read() }
        do {
            return try read()
        } catch let error where !(error is DecodingError) || JSONBody.isUnnamedRefusal(error as? DecodingError) {
            throw ValidationFailure(ProblemMapping.field(path), "is out of range")
        }
    }

    static func notNull(_ type: Any.Type, at path: [any CodingKey]) -> DecodingError {
        .valueNotFound(type, .init(codingPath: path, debugDescription: "null where a value is needed"))
    }
}

/// Dictionaries with string keys: JSONDecoder keeps their keys as sent.
protocol StringKeyedMap {}
extension Dictionary: StringKeyedMap where Key == String {}

struct StrictKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }
    func contains(_ key: Key) -> Bool { base.contains(key) }
    func decodeNil(forKey key: Key) throws -> Bool { try StrictDecoder.reading(at: codingPath + [key]) { try base.decodeNil(forKey: key) } }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try base.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try base.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try base.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try base.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try base.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try base.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try base.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try base.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try base.decode(type, forKey: key) }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try StrictDecoder.checked({ try base.decode(type, forKey: key) }, at: codingPath + [key])
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if StrictDecoder.decodedByBase(type) {
            return try StrictDecoder.decimal(type, at: codingPath + [key]) { try base.decode(type, forKey: key) }
        }
        // JSONDecoder's own answers for a missing key or a null, before reading the value through this decoder.
        guard base.contains(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for \(key.stringValue)"))
        }
        if try decodeNil(forKey: key) { throw StrictDecoder.notNull(type, at: codingPath + [key]) }
        return try T(from: StrictDecoder(try base.superDecoder(forKey: key)))
    }

    /// Absent is nil; `null` is refused (a nullable field reads it with `decodeNil` first).
    private func present<T>(_ type: T.Type, _ key: Key, _ decode: () throws -> T) throws -> T? {
        guard base.contains(key) else { return nil }
        if try decodeNil(forKey: key) { throw StrictDecoder.notNull(type, at: codingPath + [key]) }
        return try decode()
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try present(type, key) { try decode(type, forKey: key) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try present(type, key) { try decode(type, forKey: key) } }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(StrictKeyedContainer<NestedKey>(base: try base.nestedContainer(keyedBy: type, forKey: key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key))
    }

    func superDecoder() throws -> any Decoder { StrictDecoder(try base.superDecoder()) }
    func superDecoder(forKey key: Key) throws -> any Decoder { StrictDecoder(try base.superDecoder(forKey: key)) }
}

struct StrictUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }
    mutating func decodeNil() throws -> Bool {
        let path = codingPath + [ArrayIndex(currentIndex)]
        return try StrictDecoder.reading(at: path) { try base.decodeNil() }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

    mutating func decode(_ type: String.Type) throws -> String {
        let path = codingPath + [ArrayIndex(currentIndex)]
        return try StrictDecoder.checked({ try base.decode(type) }, at: path)
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = codingPath + [ArrayIndex(currentIndex)]
        if StrictDecoder.decodedByBase(type) { return try StrictDecoder.decimal(type, at: path) { try base.decode(type) } }
        if !isAtEnd, try decodeNil() { throw StrictDecoder.notNull(type, at: path) }
        return try T(from: StrictDecoder(try base.superDecoder()))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(StrictKeyedContainer<NestedKey>(base: try base.nestedContainer(keyedBy: type)))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.nestedUnkeyedContainer())
    }

    mutating func superDecoder() throws -> any Decoder { StrictDecoder(try base.superDecoder()) }

    /// An element's place in a coding path.
    struct ArrayIndex: CodingKey {
        var intValue: Int?
        var stringValue: String { intValue.map(String.init) ?? "" }
        init(_ index: Int) { intValue = index }
        init?(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}

struct StrictSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    /// The decoder of the same value: a type read through a single value is read from it.
    let decoder: StrictDecoder

    var codingPath: [any CodingKey] { base.codingPath }
    func decodeNil() -> Bool { base.decodeNil() }

    func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

    func decode(_ type: String.Type) throws -> String {
        try StrictDecoder.checked({ try base.decode(type) }, at: codingPath)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if StrictDecoder.decodedByBase(type) { return try StrictDecoder.decimal(type, at: codingPath) { try base.decode(type) } }
        if base.decodeNil() { throw StrictDecoder.notNull(type, at: codingPath) }
        return try T(from: decoder)
    }
}
