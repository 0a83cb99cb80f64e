import Core
import Domain
import Foundation
import Hummingbird

struct Page<Item: Encodable & Sendable>: ResponseEncodable {
    var items: [Item]
    var nextCursor: String?
}

/// An optional field of an answer sent as `null` when empty rather than left out, where the
/// document says a client reads one shape ("no target" apart from "not sent"). Synthesized
/// `Encodable` leaves a nil optional out; this wrapper is the one place that writes the null.
@propertyWrapper
struct NullWhenEmpty<Value: Encodable & Sendable>: Encodable, Sendable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// A whole list, not paged: `{"items": [...]}`.
struct Items<Item: Encodable & Sendable>: ResponseEncodable {
    var items: [Item]
}

extension Request {
    /// A query parameter as text; nil when absent.
    func query(_ name: String) -> String? {
        uri.queryParameters.get(name).map { String($0) }
    }

    /// A query parameter that must be a date as YYYY-MM-DD within `LocalDate.accepted` (422
    /// naming it otherwise); nil when absent. With `windowCheckedLater`, any date from the
    /// range's start on is taken: the caller checks a narrower future of its own and says so in
    /// its own words (habits, a year ahead).
    func queryDate(_ name: String, windowCheckedLater: Bool = false) throws -> LocalDate? {
        guard let raw = query(name) else { return nil }
        if windowCheckedLater, let date = LocalDate(raw), date >= LocalDate.accepted.lowerBound { return date }
        guard let date = LocalDate(input: raw) else { throw ValidationFailure(name, LocalDate.inputRule) }
        return date
    }

    /// A query parameter that must be `true` or `false` (422 naming it otherwise); false when absent.
    func queryFlag(_ name: String) throws -> Bool {
        switch query(name) {
        case nil, "false": false
        case "true": true
        default: throw ValidationFailure(name, "must be true or false")
        }
    }
}

/// A date in a path or a query, as a client sent it: 422 naming `field` unless it is a date lifelog
/// accepts (`LocalDate.accepted`).
func inputDate(_ raw: (some StringProtocol)?, field: String) throws -> LocalDate {
    guard let raw, let date = LocalDate(input: String(raw)) else { throw ValidationFailure(field, LocalDate.inputRule) }
    return date
}

/// What a cursor carries. Cursors are not signed, so a position that could not have come from
/// this server (a date that does not exist, a priority out of range) is refused before use.
protocol CursorPosition: Decodable {
    var isPlausible: Bool { get }
}

/// Opaque cursors: base64url of a small JSON position. Clients pass them back unchanged.
enum Cursor {
    static func encode(_ position: some Encodable) -> String? {
        guard let data = try? JSONEncoder().encode(position) else { return nil }
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode<T: CursorPosition>(_ type: T.Type, _ cursor: String?) throws -> T? {
        guard let cursor, !cursor.isEmpty else { return nil }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let value = try? JSONDecoder().decode(T.self, from: data), value.isPlausible else {
            var problem = Problem.badRequest("The cursor is not one this server gave out.")
            problem.errors = [.init(field: "cursor", message: "is not one this server gave out")]
            throw problem
        }
        return value
    }

    /// `limit` from the query: 1…100, default 50.
    static func limit(_ request: Request) throws -> Int {
        guard let raw = request.uri.queryParameters.get("limit") else { return 50 }
        guard let limit = Int(raw), (1...100).contains(limit) else {
            throw Problem.invalid([.init(field: "limit", message: "must be a whole number from 1 to 100")])
        }
        return limit
    }
}

extension RequestContext {
    /// A resource id from the path; one that is not a UUID names nothing, so it is a 404 like
    /// any unknown (or another user's) id.
    func resourceId(_ name: String = "id") throws -> UUID {
        guard let id = parameters.get(name).flatMap(UUID.init(uuidString:)) else { throw Problem.notFound() }
        return id
    }
}

/// `If-Match: "3"` → 3; absent or `*` → nil.
enum ETag {
    static func header(_ version: Int64) -> String { "\"\(version)\"" }

    /// The version `If-Match` asks for; nil for none or `*`. The header is one entity-tag (RFC
    /// 9110 §8.8.3), or a bare version number (a client that left out the quotes names the same
    /// version): a well-formed tag this server never gave out (`"abc"`, `"-1"`) matches no
    /// version, so the change answers 412; anything else, a list included, is a client's bug
    /// that no reload fixes, so 400. The tag names a version of the resource, not its bytes, so
    /// a weak form (`W/"3"`, as a compressing proxy such as nginx rewrites it) names the same version.
    static func ifMatch(_ request: Request) throws -> Int64? {
        guard let raw = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces), raw != "*" else { return nil }
        let tag = raw.hasPrefix("W/") ? raw.utf8.dropFirst(2) : raw.utf8.dropFirst(0)
        let digits = { (text: Substring.UTF8View) in !text.isEmpty && text.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        if digits(tag) { return Int64(String(decoding: tag, as: UTF8.self)) ?? noVersion }
        // opaque-tag = DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E (obs-text is not taken).
        guard tag.count >= 2, tag.first == UInt8(ascii: "\""), tag.last == UInt8(ascii: "\""),
              tag.dropFirst().dropLast().allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) }) else {
            throw Problem.badRequest("If-Match takes the one ETag of the version the change is based on, such as \"3\", or *.")
        }
        let opaque = tag.dropFirst().dropLast()
        guard digits(opaque), let version = Int64(String(decoding: opaque, as: UTF8.self)) else { return noVersion }
        return version
    }

    /// Matches no stored version (versions start at 0).
    static let noVersion: Int64 = -1
}
