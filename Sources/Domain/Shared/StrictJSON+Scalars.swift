import Foundation

// The scanner's scalars: strings (escapes, surrogates) and numbers (the lexical rules and, where asked, the field rules).
extension StrictJSON.Scanner {
    /// Reads a string from its opening quote; returns its text only when asked (keys).
    mutating func string(keepText: Bool) throws(StrictJSON.Issue) -> String {
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

    func unpaired() throws(StrictJSON.Issue) {
        if rules.contains(.surrogates) { throw field("contains half of a UTF-16 surrogate pair") }
    }

    mutating func hex4() throws(StrictJSON.Issue) -> UInt16 {
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

    mutating func number() throws(StrictJSON.Issue) {
        // Over 60 lines: JSON's number grammar and the field rules, one pass over its bytes.
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
            numbers.append(StrictJSON.Number(path: steps.isEmpty ? "body" : path, range: start..<at, whole: whole))
        }
    }
}
