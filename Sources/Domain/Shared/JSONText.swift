import Foundation

/// A small JSON writer: objects, arrays, strings (escaped), numbers. Health batches and the
/// recovery series write their own JSON with it: Foundation's encoder, with its snake-case
/// keys, spent most of their time.
public struct JSONText: Sendable {
    /// UTF-8 bytes: appending them is cheaper than growing a String piece by piece.
    private var bytes: [UInt8] = []
    private var first = [true]

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func write(_ piece: StaticString) {
        piece.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func write(_ piece: String) { bytes.append(contentsOf: piece.utf8) }

    public mutating func open() { write("{"); first.append(true) }
    public mutating func close() { write("}"); first.removeLast() }
    public mutating func openArray() { write("["); first.append(true) }
    public mutating func closeArray() { write("]"); first.removeLast() }

    /// Before an object's key or an array's element: a comma unless it is the first.
    private mutating func separate() {
        if first[first.count - 1] { first[first.count - 1] = false } else { write(",") }
    }

    public mutating func key(_ name: String) {
        separate()
        write("\"")
        write(name)
        write("\":")
    }

    public mutating func element() { separate() }

    public mutating func string(_ value: String) {
        write("\"")
        // Almost every value needs no escaping: taken whole, not scalar by scalar.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            write(value)
            write("\"")
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): write("\\\"")
            case UInt8(ascii: "\\"): write("\\\\")
            case UInt8(ascii: "\n"): write("\\n")
            case UInt8(ascii: "\r"): write("\\r")
            case UInt8(ascii: "\t"): write("\\t")
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                write("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: bytes.append(byte)  // a multi-byte character's bytes are all 0x80 or above
            }
        }
        write("\"")
    }

    /// Finite numbers only (ingestion rejects the others); Swift's description round-trips.
    public mutating func number(_ value: Double) {
        if value.isFinite { write(value.description) } else { write("null") }
    }

    public mutating func number(_ value: Int64) {
        guard value != 0 else { bytes.append(UInt8(ascii: "0")); return }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: [UInt8] = []
        while magnitude > 0 {
            digits.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        bytes.append(contentsOf: digits.reversed())
    }

    public mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    public mutating func field(_ name: String, _ value: Double?) {
        guard let value else { return }
        key(name)
        number(value)
    }

    public init() {}

    public mutating func null() { write("null") }
    /// JSON written elsewhere (a stored jsonb's text), taken as it is.
    public mutating func raw(_ json: String) { write(json) }
    public mutating func bool(_ value: Bool) { if value { write("true") } else { write("false") } }

    /// A key whose value is sent as null when absent (the shape stays the same for every item).
    public mutating func nullable(_ name: String, _ value: Double?) {
        key(name)
        if let value { number(value) } else { null() }
    }

    public mutating func nullable(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }
}
