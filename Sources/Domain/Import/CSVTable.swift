import Foundation

/// A CSV file as RFC 4180 writes it: fields separated by commas, records by CRLF (or a bare LF,
/// as opencsv and League\Csv write them), a field in double quotes may hold commas, line ends
/// and doubled quotes. A UTF-8 byte-order mark is dropped, blank lines are no records. The first
/// record is the header: columns are found by name, so a column added later (or moved) changes
/// nothing.
public struct CSVTable: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// The line of the file the record starts on (the header is line 1).
        public var line: Int
        public var fields: [String]
    }

    /// A quote that is never closed, or a character after a closing quote.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public var header: [String]
    public var rows: [Row]

    public init(_ text: String) throws(Malformed) {
        var records = try Self.records(Array(text.utf8))
        let first = records.isEmpty ? nil : records.removeFirst()
        header = first?.fields.map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        rows = records
    }

    /// The index of the column named `name` (case and surrounding spaces aside).
    public func column(_ name: String) -> Int? {
        header.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The row's field in `column`, or "" when the row is shorter or there is no such column.
    public func value(_ row: Row, _ column: Int?) -> String {
        guard let column, column < row.fields.count else { return "" }
        return row.fields[column]
    }

    /// Every record of `bytes` with the line it starts on. Over 60 lines: one scanner, byte by byte.
    static func records(_ bytes: [UInt8]) throws(Malformed) -> [Row] {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var rows: [Row] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var recordLine = 1
        var quoted = false, wasQuoted = false
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRecord() {
            endField()
            // A blank line is no record.
            if !(fields.count == 1 && fields[0].isEmpty) { rows.append(Row(line: recordLine, fields: fields)) }
            fields.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == quote {
                    if index + 1 < bytes.count, bytes[index + 1] == quote {
                        field.append(quote)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == lf { line += 1 }
                    field.append(byte)
                }
            } else if byte == quote, field.isEmpty, !wasQuoted {
                quoted = true
                wasQuoted = true
            } else if byte == comma {
                endField()
            } else if byte == lf || byte == cr {
                if byte == cr, index + 1 < bytes.count, bytes[index + 1] == lf { index += 1 }
                endRecord()
                line += 1
                recordLine = line
            } else if wasQuoted {
                throw Malformed(line: line, reason: "a character after a field's closing quote")
            } else {
                field.append(byte)
            }
            index += 1
        }
        if quoted { throw Malformed(line: recordLine, reason: "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        return rows
    }
}

/// Lines of NDJSON read from chunks of bytes as they arrive (a file read a MiB at a time, a
/// request's body): each complete line once, without its line end (LF or CRLF).
public struct NDJSONLines: Sendable {
    private var pending: [UInt8] = []
    /// Bytes taken so far, for progress.
    public private(set) var bytesRead = 0

    public init() {}

    /// The lines `chunk` completes.
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [String] {
        bytesRead += chunk.count
        pending.append(contentsOf: chunk)
        guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let lines = pending[..<last].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Self.text)
        pending.removeSubrange(...last)
        return lines
    }

    /// The last line, when the input does not end with a line end.
    public mutating func finish() -> [String] {
        defer { pending.removeAll() }
        return pending.isEmpty ? [] : [Self.text(pending[...])]
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes, as: UTF8.self)
    }
}
