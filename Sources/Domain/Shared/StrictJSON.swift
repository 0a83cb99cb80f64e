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
    }
}
