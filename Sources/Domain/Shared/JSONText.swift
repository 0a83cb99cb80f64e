import Foundation

/// A small JSON writer: objects, arrays, strings (escaped), numbers. Health batches and the
/// recovery series write their own JSON with it: Foundation's encoder, with its snake-case
/// keys, spent most of their time.
public struct JSONText: Sendable {
    public private(set) var text = ""
    private var first = [true]

    public mutating func open() { text += "{"; first.append(true) }
    public mutating func close() { text += "}"; first.removeLast() }
    public mutating func openArray() { text += "["; first.append(true) }
    public mutating func closeArray() { text += "]"; first.removeLast() }

    /// Before an object's key or an array's element: a comma unless it is the first.
    private mutating func separate() {
        if first[first.count - 1] { first[first.count - 1] = false } else { text += "," }
    }

    public mutating func key(_ name: String) {
        separate()
        text += "\"\(name)\":"
    }

    public mutating func element() { separate() }

    public mutating func string(_ value: String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// Finite numbers only (ingestion rejects the others); Swift's description round-trips.
    public mutating func number(_ value: Double) { text += value.isFinite ? "\(value)" : "null" }
    public mutating func number(_ value: Int64) { text += String(value) }

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

    public mutating func null() { text += "null" }
    /// JSON written elsewhere (a stored jsonb's text), taken as it is.
    public mutating func raw(_ json: String) { text += json }
    public mutating func bool(_ value: Bool) { text += value ? "true" : "false" }

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
