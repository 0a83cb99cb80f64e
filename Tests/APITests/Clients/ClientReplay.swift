import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// One of the apps' requests as its source builds it (`Tests/Fixtures/clients`, provenance in
/// `SOURCES.txt`), replayed against the server with lifelog's credential in the app's place.
struct ClientRequest: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var headers: [(String, String)]
    var query: [(String, String)]
    /// The body as JSON text (nil for none).
    var body: String?
    /// What the app accepts, in words (from the fixture).
    var expectedStatuses: [Int]

    static let folder = TestDatabase.packageRoot.appendingPathComponent("Tests/Fixtures/clients")

    /// `name` is `health-sync/02_ingest_metrics_incremental`. `credential` replaces the app's
    /// placeholder key wherever the app puts one (X-API-Key, X-Webhook-Secret, client_id).
    static func fixture(_ name: String, credential: String? = nil) throws -> ClientRequest {
        let data = try Data(contentsOf: folder.appendingPathComponent(name + ".json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let method = HTTPRequest.Method(try #require(object["method"] as? String))
        var headers = ((object["headers"] as? [String: String]) ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let credential {
            headers = headers.map { name, value in ["X-API-Key", "X-Webhook-Secret"].contains(name) ? (name, credential) : (name, value) }
        }
        let query = ((object["query"] as? [String: Any]) ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") }
        var body: String?
        if let given = object["body"], !(given is NSNull) {
            var value = given
            if let credential { value = Self.replacingClientId(value, with: credential) }
            body = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.withoutEscapingSlashes]), as: UTF8.self)
        }
        let statuses = ((object["expect"] as? [String: Any])?["status"] as? [Int]) ?? [200]
        return ClientRequest(method: try #require(method), path: try #require(object["path"] as? String), headers: headers, query: query,
                             body: body, expectedStatuses: statuses)
    }

    static func replacingClientId(_ value: Any, with key: String) -> Any {
        if var object = value as? [String: Any] {
            if object["client_id"] != nil { object["client_id"] = key }
            return object.mapValues { replacingClientId($0, with: key) }
        }
        if let array = value as? [Any] { return array.map { replacingClientId($0, with: key) } }
        return value
    }

    var uri: String {
        guard !query.isEmpty else { return path }
        let items = query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? $0.1)" }
        return path + "?" + items.joined(separator: "&")
    }

    func send(_ http: any TestClientProtocol, path: String? = nil, extraQuery: [(String, String)] = []) async throws -> ClientAnswer {
        var fields = HTTPFields()
        for (name, value) in headers { if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) } }
        var copy = self
        if let path {
            // A path with its own query replaces the fixture's (`/api/section/sleep?lang=ru`).
            let parts = path.split(separator: "?", maxSplits: 1)
            copy.path = String(parts[0])
            if parts.count == 2 {
                copy.query = parts[1].split(separator: "&").map { pair in
                    let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    return (kv[0], kv.count > 1 ? kv[1] : "")
                }
            }
        }
        copy.query += extraQuery
        return try await http.execute(uri: copy.uri, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) }) { response in
            ClientAnswer(status: response.status.code, headers: response.headers, text: String(buffer: response.body))
        }
    }
}

/// An answer, and the checks the apps make of it.
struct ClientAnswer: Sendable {
    var status: Int
    var headers: HTTPFields
    var text: String

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
    var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
    var contentType: String { headers[.contentType] ?? "" }

    /// health-sync's acceptance of an upload (HealthSyncTransport: 2xx, a JSON content type,
    /// `status: "ok"`, `id` a JSON integer > 0 — not a bool, a fraction or a string — and no `error`).
    var healthSyncAccepts: Bool {
        guard (200..<300).contains(status), contentType.contains("json"), object["status"] as? String == "ok" else { return false }
        guard let id = integer("id"), id > 0 else { return false }
        if let error = object["error"], !(error is NSNull), !((error as? String)?.trimmingCharacters(in: .whitespaces).isEmpty ?? false) { return false }
        return true
    }

    /// A top-level key's value when the text writes it as a JSON integer (digits only: not a
    /// bool, a fraction or a string), read from the text, since a parsed number blurs them.
    func integer(_ key: String) -> Int64? {
        guard object[key] != nil, let range = text.range(of: "\"\(key)\":") else { return nil }
        let rest = text[range.upperBound...].drop { $0 == " " }
        let digits = rest.prefix { $0.isNumber || $0 == "-" }
        guard !digits.isEmpty, let next = rest.dropFirst(digits.count).first, next == "," || next == "}" || next == " " else { return nil }
        return Int64(digits)
    }
}
