import Foundation

extension JSONNode {
    /// Reads a document front to back without building it: an object's members and an array's
    /// elements are visited in order, and each value is read (`value()`) or passed over
    /// (`skip()`) where it stands. The same documents are refused as by `parse`, and a value
    /// read is the one `parse` finds there. A health event's payload (500 records) is read
    /// several times per stored batch, by the records projector and by two async projectors
    /// that want four fields of each record: building the whole tree, then looking fields up,
    /// cost more than the reading.
    public struct Cursor {
        var reader: Reader
        var depth = 0

        /// What `body` reads of the document in `text`; nil when `body` answers nil, or what
        /// follows the value it read is more than whitespace. `body` reads the one top-level
        /// value (`object`, `array`, `value` or `skip`): the document is then checked whole.
        public static func read<T>(_ text: String, _ body: (inout Cursor) -> T?) -> T? {
            var text = text
            return text.withUTF8 { bytes in
                var cursor = Cursor(reader: Reader(bytes: bytes))
                guard let result = body(&cursor) else { return nil }
                cursor.reader.skipSpace()
                return cursor.reader.at == bytes.count ? result : nil
            }
        }

        /// A member's name, valid while its member is visited.
        public struct Key {
            let raw: UnsafeBufferPointer<UInt8>
            /// Set when the name holds an escape: then it is compared as text.
            let unescaped: String?

            /// The name as text (a copy).
            public var text: String { unescaped ?? String(decoding: raw, as: UTF8.self) }

            public static func == (key: Key, name: StaticString) -> Bool {
                if let unescaped = key.unescaped { return unescaped == name.description }
                guard key.raw.count == name.utf8CodeUnitCount else { return false }
                guard let base = key.raw.baseAddress else { return true }
                return memcmp(base, name.utf8Start, key.raw.count) == 0
            }
        }

        /// The next value, whole (for a string or a number, what `parse` makes of it).
        public mutating func value() -> JSONNode? {
            reader.value(depth: depth)
        }

        /// Passes over the next value, checked as `value()` checks it, building nothing.
        public mutating func skip() -> Bool {
            reader.skip(depth: depth)
        }

        /// Visits the members of the next value, which must be an object: `member` gets each name
        /// and must read or skip its value (false stops with a failure). A name written twice is
        /// visited twice, so a reader that keeps the last value read keeps what `parse` keeps.
        public mutating func object(_ member: (inout Cursor, Key) -> Bool) -> Bool {
            reader.skipSpace()
            guard reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "{"), depth < JSONNode.maxDepth else { return false }
            reader.at += 1
            depth += 1
            defer { depth -= 1 }
            reader.skipSpace()
            if reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "}") {
                reader.at += 1
                return true
            }
            while true {
                reader.skipSpace()
                guard reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "\""),
                      let (raw, escaped) = reader.scanString() else { return false }
                reader.skipSpace()
                guard reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: ":") else { return false }
                reader.at += 1
                guard member(&self, Key(raw: raw, unescaped: escaped ? StrictJSON.Scanner.unescape(raw) : nil)) else { return false }
                reader.skipSpace()
                guard reader.at < reader.bytes.count else { return false }
                if reader.bytes[reader.at] == UInt8(ascii: ",") { reader.at += 1; continue }
                guard reader.bytes[reader.at] == UInt8(ascii: "}") else { return false }
                reader.at += 1
                return true
            }
        }

        /// Visits the elements of the next value, which must be an array: `element` must read or
        /// skip each (false stops with a failure).
        public mutating func array(_ element: (inout Cursor) -> Bool) -> Bool {
            reader.skipSpace()
            guard reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "["), depth < JSONNode.maxDepth else { return false }
            reader.at += 1
            depth += 1
            defer { depth -= 1 }
            reader.skipSpace()
            if reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "]") {
                reader.at += 1
                return true
            }
            while true {
                guard element(&self) else { return false }
                reader.skipSpace()
                guard reader.at < reader.bytes.count else { return false }
                if reader.bytes[reader.at] == UInt8(ascii: ",") { reader.at += 1; continue }
                guard reader.bytes[reader.at] == UInt8(ascii: "]") else { return false }
                reader.at += 1
                return true
            }
        }

        /// The first byte of the next value (`{`, `[`, `"`, …); nil at the end.
        public mutating func peek() -> UInt8? {
            reader.skipSpace()
            return reader.at < reader.bytes.count ? reader.bytes[reader.at] : nil
        }

        /// Passes a `null` when the next value is one.
        public mutating func null() -> Bool {
            reader.skipSpace()
            return reader.at < reader.bytes.count && reader.bytes[reader.at] == UInt8(ascii: "n") && reader.word("null")
        }
    }
}

extension JSONNode.Reader {
    /// Passes over one value, refusing what `value(depth:)` refuses.
    mutating func skip(depth: Int) -> Bool {
        skipSpace()
        guard at < bytes.count, depth < JSONNode.maxDepth else { return false }
        switch bytes[at] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var cursor = JSONNode.Cursor(reader: self, depth: depth)
            let passed = bytes[at] == UInt8(ascii: "{") ? cursor.object { cursor, _ in cursor.skip() } : cursor.array { $0.skip() }
            self = cursor.reader
            return passed
        case UInt8(ascii: "\""): return scanString() != nil
        default: return value(depth: depth) != nil  // a word or a number: nothing to build
        }
    }
}
