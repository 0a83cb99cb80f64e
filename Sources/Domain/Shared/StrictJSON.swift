import Foundation

/// RFC 8259 JSON, checked before a request body is decoded. Foundation's decoder accepts a
/// trailing comma, reads `2.9999999999999999999` into a whole-number field as 3, and keeps a NUL
/// inside a string; this check refuses what is not JSON and names the field of what is JSON but
/// cannot be kept as sent.
public enum StrictJSON {
    public enum Issue: Error, Sendable, Equatable {
        /// Not JSON (a 400), with where and why.
        case syntax(String)
        /// JSON, but a value that cannot be kept as sent (a 422 naming the field).
        case field(path: String, message: String)
    }

    /// A number written with a fraction or an exponent: the only kind a whole-number field
    /// refuses, so the candidates when the decoder refuses one without naming it.
    public struct Number: Sendable, Equatable {
        public var path: String
        /// Its bytes in the body.
        public var range: Range<Int>
        /// Whether its value is a whole number (`1.0`, `15e-1` is not).
        public var whole: Bool
    }

    /// Numbers with a fraction or an exponent carry at most this many significant digits: a
    /// Double keeps 17, and a longer one would be rounded where it is read.
    public static let maxSignificantDigits = 17
    /// Bodies nest far less than this; a deeper one is refused before any decoder recurses into it.
    public static let maxDepth = 64

    /// The rules for values, beyond the syntax.
    public struct Rules: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// No NUL in a string.
        public static let nul = Rules(rawValue: 1)
        /// No unpaired UTF-16 surrogate in a string.
        public static let surrogates = Rules(rawValue: 2)
        /// No more significant digits in a number than are kept.
        public static let digits = Rules(rawValue: 4)
        public static let all: Rules = [.nul, .surrogates, .digits]
    }

    /// Checks `data`. `fieldRules` adds every rule for values (no NUL or unpaired surrogate in a
    /// string, no more significant digits than are kept); without it only the syntax is checked.
    public static func check(_ data: Data, fieldRules: Bool = true) throws(Issue) {
        try check(data, rules: fieldRules ? .all : [])
    }

    /// Checks the syntax of `data` and the value rules in `rules`, wherever the value is.
    public static func check(_ data: Data, rules: Rules) throws(Issue) {
        let result: Result<[Number], Issue> = data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self), rules: rules, collect: false)
            return scanner.run()
        }
        if case .failure(let issue) = result { throw issue }
    }

    /// Every number of a valid body written with a fraction or an exponent, with its path.
    public static func fractionalNumbers(in data: Data) -> [Number] {
        let result: Result<[Number], Issue> = data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self), rules: [], collect: true)
            return scanner.run()
        }
        return (try? result.get()) ?? []
    }

    struct Scanner {
        enum Step: Equatable { case key(String), index(Int) }
        let bytes: UnsafeBufferPointer<UInt8>
        let rules: Rules
        let collect: Bool
        var at = 0
        var steps: [Step] = []
        var numbers: [Number] = []

        init(bytes: UnsafeBufferPointer<UInt8>, rules: Rules, collect: Bool) {
            self.bytes = bytes
            self.rules = rules
            self.collect = collect
        }

        mutating func run() -> Result<[Number], Issue> {
            do throws(Issue) {
                skipSpace()
                try value(depth: 0)
                skipSpace()
                guard at == bytes.count else { throw syntax("there is more after the JSON value") }
                return .success(numbers)
            } catch {
                return .failure(error)
            }
        }

        var path: String {
            steps.map { step in
                switch step {
                case .key(let key): key
                case .index(let index): String(index)
                }
            }.joined(separator: ".")
        }

        func syntax(_ why: String) -> Issue {
            .syntax(at < bytes.count ? "\(why) (at byte \(at))" : "\(why) (at the end)")
        }

        func field(_ message: String) -> Issue {
            .field(path: steps.isEmpty ? "body" : path, message: message)
        }

        var current: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { at += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(Issue) {
            guard current == byte else { throw syntax("expected \(what)") }
            at += 1
        }

        mutating func value(depth: Int) throws(Issue) {
            guard depth < StrictJSON.maxDepth else { throw syntax("values nest deeper than \(StrictJSON.maxDepth) levels") }
            switch current {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string(keepText: false)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"): try number()
            case let byte? where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): try number()
            case nil: throw syntax("the body ends where a value was expected")
            default: throw syntax("expected a value")
            }
        }

        mutating func literal(_ word: StaticString) throws(Issue) {
            let count = word.utf8CodeUnitCount
            guard at + count <= bytes.count else { throw syntax("expected a value") }
            for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { throw syntax("expected a value") }
            at += count
        }

        mutating func object(depth: Int) throws(Issue) {
            at += 1
            skipSpace()
            if current == UInt8(ascii: "}") { at += 1; return }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else {
                    throw syntax(current == UInt8(ascii: "}") ? "a comma before the closing brace" : "expected a field name in double quotes")
                }
                let key = try string(keepText: true)
                skipSpace()
                try expect(UInt8(ascii: ":"), "a colon after the field name")
                skipSpace()
                steps.append(.key(key))
                try value(depth: depth + 1)
                steps.removeLast()
                skipSpace()
                switch current {
                case UInt8(ascii: ","): at += 1
                case UInt8(ascii: "}"): at += 1; return
                default: throw syntax("expected a comma or a closing brace")
                }
            }
        }

        mutating func array(depth: Int) throws(Issue) {
            at += 1
            skipSpace()
            if current == UInt8(ascii: "]") { at += 1; return }
            var index = 0
            while true {
                skipSpace()
                if current == UInt8(ascii: "]") { throw syntax("a comma before the closing bracket") }
                steps.append(.index(index))
                try value(depth: depth + 1)
                steps.removeLast()
                index += 1
                skipSpace()
                switch current {
                case UInt8(ascii: ","): at += 1
                case UInt8(ascii: "]"): at += 1; return
                default: throw syntax("expected a comma or a closing bracket")
                }
            }
        }

        /// Reads a string from its opening quote; returns its text only when asked (keys).
        mutating func string(keepText: Bool) throws(Issue) -> String {
            at += 1
            let start = at
            var escaped = false
            var pendingHigh = false
            while true {
                guard let byte = current else { throw syntax("a string is not closed") }
                if pendingHigh && byte != UInt8(ascii: "\\") { try unpaired() }
                switch byte {
                case UInt8(ascii: "\""):
                    if pendingHigh { try unpaired() }
                    let end = at
                    at += 1
                    guard keepText else { return "" }
                    return escaped ? Self.unescape(UnsafeBufferPointer(rebasing: bytes[start..<end])) : String(decoding: bytes[start..<end], as: UTF8.self)
                case UInt8(ascii: "\\"):
                    escaped = true
                    at += 1
                    switch current {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                         UInt8(ascii: "r"), UInt8(ascii: "t"):
                        if pendingHigh { try unpaired() }
                        at += 1
                    case UInt8(ascii: "u"):
                        at += 1
                        let unit = try hex4()
                        if unit == 0, rules.contains(.nul) { throw field("contains a NUL character") }
                        if (0xDC00...0xDFFF).contains(unit) {
                            if !pendingHigh { try unpaired() }
                            pendingHigh = false
                        } else {
                            if pendingHigh { try unpaired() }
                            pendingHigh = (0xD800...0xDBFF).contains(unit)
                        }
                    default: throw syntax("a backslash starts no escape")
                    }
                case let control where control < 0x20: throw syntax("a control character inside a string must be escaped")
                default: at += 1
                }
            }
        }

        func unpaired() throws(Issue) {
            if rules.contains(.surrogates) { throw field("contains half of a UTF-16 surrogate pair") }
        }

        mutating func hex4() throws(Issue) -> UInt16 {
            guard at + 4 <= bytes.count else { throw syntax("\\u needs four hex digits") }
            var unit: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[at]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw syntax("\\u needs four hex digits")
                }
                unit = unit << 4 | UInt16(digit)
                at += 1
            }
            return unit
        }

        /// A field name with escapes, decoded (only for naming it in an answer).
        static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String {
            var units: [UInt16] = []
            var bytes: [UInt8] = []
            func flushBytes() {
                units.append(contentsOf: String(decoding: bytes, as: UTF8.self).utf16)
                bytes.removeAll()
            }
            var index = 0
            while index < raw.count {
                let byte = raw[index]
                guard byte == UInt8(ascii: "\\"), index + 1 < raw.count else { bytes.append(byte); index += 1; continue }
                flushBytes()
                let next = raw[index + 1]
                index += 2
                switch next {
                case UInt8(ascii: "b"): units.append(0x08)
                case UInt8(ascii: "f"): units.append(0x0C)
                case UInt8(ascii: "n"): units.append(0x0A)
                case UInt8(ascii: "r"): units.append(0x0D)
                case UInt8(ascii: "t"): units.append(0x09)
                case UInt8(ascii: "u") where index + 4 <= raw.count:
                    units.append(UInt16(String(decoding: raw[index..<index + 4], as: UTF8.self), radix: 16) ?? 0xFFFD)
                    index += 4
                default: units.append(UInt16(next))
                }
            }
            flushBytes()
            return String(decoding: units, as: UTF16.self)
        }

        mutating func number() throws(Issue) {
            let start = at
            if current == UInt8(ascii: "-") { at += 1 }
            // Significant digits: those after the leading zeros, without the trailing zeros.
            var significant = 0
            var trailingZeros = 0
            var fractionDigits = 0
            var lastNonZeroFraction = 0
            func digit(_ byte: UInt8) {
                if byte == UInt8(ascii: "0") {
                    if significant > 0 { trailingZeros += 1 }
                } else {
                    significant += trailingZeros + 1
                    trailingZeros = 0
                }
            }
            switch current {
            case UInt8(ascii: "0"):
                at += 1
                if let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { throw syntax("a number has a leading zero") }
            case let byte? where (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(byte):
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { digit(byte); at += 1 }
            default: throw syntax("a minus sign needs digits after it")
            }
            let integerTrailingZeros = trailingZeros
            var plain = true
            if current == UInt8(ascii: ".") {
                plain = false
                at += 1
                guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    throw syntax("a decimal point needs digits after it")
                }
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    fractionDigits += 1
                    if byte != UInt8(ascii: "0") { lastNonZeroFraction = fractionDigits }
                    digit(byte)
                    at += 1
                }
            }
            var exponent = 0
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                plain = false
                at += 1
                var negative = false
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { negative = current == UInt8(ascii: "-"); at += 1 }
                guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    throw syntax("an exponent needs digits")
                }
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    exponent = min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 100_000)
                    at += 1
                }
                if negative { exponent = -exponent }
            }
            guard !plain else { return }
            if rules.contains(.digits), significant > StrictJSON.maxSignificantDigits {
                throw field("has \(significant) significant digits; at most \(StrictJSON.maxSignificantDigits) are kept exactly")
            }
            if collect {
                // Whole when the exponent moves every non-zero fraction digit before the point, and
                // a negative one only drops zeros of a whole number.
                let whole = exponent >= 0
                    ? lastNonZeroFraction <= exponent
                    : lastNonZeroFraction == 0 && (significant == 0 || integerTrailingZeros >= -exponent)
                numbers.append(Number(path: steps.isEmpty ? "body" : path, range: start..<at, whole: whole))
            }
        }
    }
}
