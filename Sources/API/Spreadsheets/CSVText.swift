import Foundation
import Hummingbird
import NIOCore

/// RFC 4180 text for the spreadsheet downloads: CRLF line ends; a field quoted when it holds a
/// comma, a quote or a line break, its quotes doubled. Text a person typed that a spreadsheet
/// would run as a formula (starting with =, +, -, @, a tab or a carriage return) gets a leading
/// apostrophe, so it is shown, not run; figures are written as they are (a negative amount too).
enum CSVText {
    enum Field {
        /// Something a person typed: a note, a name.
        case text(String?)
        /// A figure, a date, a code or an id the server wrote.
        case value(String?)
    }

    static func line(_ fields: [Field]) -> String {
        fields.map { field in
            switch field {
            case .text(let text): quoted(neutralized(text ?? ""))
            case .value(let value): quoted(value ?? "")
            }
        }.joined(separator: ",") + "\r\n"
    }

    static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func neutralized(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }

    /// A download: `text/csv` with a file name, written a chunk at a time by `write`.
    static func download(named name: String, _ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        Response(status: .ok, headers: [
            .contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(name)\"", .cacheControl: "no-store",
        ], body: ResponseBody { writer in
            try await write(&writer)
            try await writer.finish(nil)
        })
    }
}
