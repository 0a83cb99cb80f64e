import Foundation

/// A JSON document read into plain Swift values, for a format read item by item (a health
/// batch of thousands). `JSONSerialization` built a Foundation object, an `NSNumber` and a
/// type check per field: reading a 5,000-item batch through it was a fifth of a re-sent
/// year's CPU. The same answers: the last of two equal keys wins, invalid UTF-8 or a number
/// out of Double's range refuses the whole document, `-0` is 0. Two differences: a trailing
/// comma, which JSONSerialization let through, is refused (as RFC 8259 and `StrictJSON` do);
/// and a number written with more than 17 characters is read correctly rounded, where
/// JSONSerialization went through `Decimal` and missed by a unit in the last place
/// (`0.30000000000000004` became 0.3000000000000001).
public enum JSONNode: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object(JSONNode.Object)

    /// Nesting deeper than this is refused, before the reader's recursion could run out of stack.
    public static let maxDepth = 512

    /// The document in `data`; nil when it is not JSON.
    public static func parse(_ data: Data) -> JSONNode? {
        data.withUnsafeBytes { parse(bytes: $0.bindMemory(to: UInt8.self)) }
    }

    /// The document in `text`.
    public static func parse(_ text: String) -> JSONNode? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> JSONNode? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.at == reader.bytes.count ? value : nil
    }

    public var object: JSONNode.Object? {
        if case .object(let object) = self { object } else { nil }
    }

    public var array: [JSONNode]? {
        if case .array(let array) = self { array } else { nil }
    }

    public var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    public var number: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    public var isTrue: Bool {
        if case .bool(true) = self { true } else { false }
    }

    public var isNull: Bool {
        if case .null = self { true } else { false }
    }
}

extension JSONNode {
    /// An object's members in the order written; items have a handful, so a search beats a hash.
    public struct Object: Sendable {
        public var members: [(key: String, value: JSONNode)]

        /// The value of `key`: the last one written, as `JSONSerialization` kept it.
        public subscript(key: String) -> JSONNode? {
            members.last(where: { $0.key == key })?.value
        }
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> JSONNode? {
            skipSpace()
            guard at < bytes.count, depth < JSONNode.maxDepth else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONNode.string)
            case UInt8(ascii: "t"): return word("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return word("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return word("null") ? .null : nil
            default: return number()
            }
        }

        mutating func word(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[at + offset] != text.utf8Start[offset] { return false }
            at += count
            return true
        }

        mutating func object(depth: Int) -> JSONNode? {
            at += 1
            var members: [(key: String, value: JSONNode)] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return .object(JSONNode.Object(members: members))
            }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return nil }
                at += 1
                guard let value = value(depth: depth + 1) else { return nil }
                members.append((key, value))
                skipSpace()
                guard at < bytes.count else { return nil }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "}") else { return nil }
                at += 1
                return .object(JSONNode.Object(members: members))
            }
        }

        mutating func array(depth: Int) -> JSONNode? {
            at += 1
            var elements: [JSONNode] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                guard at < bytes.count else { return nil }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "]") else { return nil }
                at += 1
                return .array(elements)
            }
        }

        /// A string from its opening quote: most are ASCII without escapes, read in one copy.
        mutating func string() -> String? {
            guard let (raw, escaped) = scanString() else { return nil }
            return escaped ? StrictJSON.Scanner.unescape(raw) : String(decoding: raw, as: UTF8.self)
        }

        /// Passes a string from its opening quote, checked as `string()` checks it: the bytes
        /// between the quotes, and whether they hold an escape.
        mutating func scanString() -> (raw: UnsafeBufferPointer<UInt8>, escaped: Bool)? {
            at += 1
            let start = at
            var escaped = false, ascii = true
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case UInt8(ascii: "\""):
                    let raw = UnsafeBufferPointer(rebasing: bytes[start..<at])
                    at += 1
                    if !ascii { guard String(validating: raw, as: UTF8.self) != nil else { return nil } }
                    return (raw, escaped)
                case UInt8(ascii: "\\"):
                    // The escaped byte is skipped whatever it is (a quote must not end the string);
                    // a `\u` escape's digits are checked where the text is made.
                    escaped = true
                    guard at + 1 < bytes.count, Self.isEscape(bytes[at + 1]) else { return nil }
                    if bytes[at + 1] == UInt8(ascii: "u") {
                        guard at + 6 <= bytes.count, (at + 2..<at + 6).allSatisfy({ Self.isHex(bytes[$0]) }) else { return nil }
                        at += 6
                    } else {
                        at += 2
                    }
                case let control where control < 0x20:
                    return nil
                default:
                    if byte >= 0x80 { ascii = false }
                    at += 1
                }
            }
            return nil
        }

        static func isEscape(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                 UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "u"): true
            default: false
            }
        }

        static func isHex(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }

        /// JSON's number grammar; the value correctly rounded (strtod), refused out of Double's range.
        mutating func number() -> JSONNode? {
            let start = at
            var whole = true
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits(leadingZeroAlone: true) else { return nil }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                whole = false
                guard digits(leadingZeroAlone: false) else { return nil }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                whole = false
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits(leadingZeroAlone: false) else { return nil }
            }
            guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)), value.isFinite else {
                return nil
            }
            // A whole `-0` is the integer 0, as JSONSerialization read it.
            return .number(whole && value == 0 ? 0 : value)
        }

        /// One or more digits; with `leadingZeroAlone`, a leading 0 is the whole run (JSON has no `01`).
        mutating func digits(leadingZeroAlone: Bool) -> Bool {
            let start = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            guard at > start else { return false }
            return !(leadingZeroAlone && bytes[start] == UInt8(ascii: "0") && at - start > 1)
        }
    }
}
