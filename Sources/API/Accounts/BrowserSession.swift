import Core
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The browser's session (issue 28, DESIGN §10): the refresh token lives in an `HttpOnly;
/// SameSite=Strict` cookie scoped to the auth routes (`Path=/api/v1/auth`), `Secure` when the
/// page came over TLS (a proxy saying `X-Forwarded-Proto: https`, or an `https` Origin); the
/// access token only in the page's memory. A second cookie, as strict, scoped to
/// `/api/v1/events`, lets an `EventSource` open the change stream: it names the session and is
/// signed with the server's key, and is good while the session is open.
///
/// Every request these cookies authenticate is a write to `/api/v1/auth/browser/*` or the
/// stream's read, and the writes must come from this origin: `Origin` must be present and name
/// the host the request was sent to (`Host`, or `X-Forwarded-Host` behind a proxy), and a
/// `Sec-Fetch-Site` other than `same-origin` is refused: 403 either way. SameSite=Strict already
/// keeps the cookie off requests another site starts; the check is the second lock.
enum BrowserSession {
    static let refreshCookie = "lifelog_refresh"
    static let refreshPath = "/api/v1/auth"
    static let streamCookie = "lifelog_session"
    static let streamPath = "/api/v1/events"

    /// The value of the cookie `name` in the request's `Cookie` headers; nil when absent.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// Whether the page was served over TLS, as far as the server can tell.
    static func secure(_ request: Request) -> Bool {
        request.headers[.forwardedProto]?.lowercased().split(separator: ",").first?.trimmingCharacters(in: .whitespaces) == "https"
            || request.headers[.origin]?.lowercased().hasPrefix("https://") == true
    }

    static func setCookie(_ name: String, _ value: String, path: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The cookies a signed-in browser holds: the refresh token and the stream's session.
    static func cookies(refreshToken: String, sessionId: UUID?, keys: [SymmetricKey], request: Request) -> [String] {
        let secure = secure(request), maxAge = Int(SessionService.refreshLifetime)
        var cookies = [setCookie(refreshCookie, refreshToken, path: refreshPath, maxAge: maxAge, secure: secure)]
        if let sessionId, let value = streamValue(sessionId, keys: keys) {
            cookies.append(setCookie(streamCookie, value, path: streamPath, maxAge: maxAge, secure: secure))
        }
        return cookies
    }

    /// Cookies that remove both.
    static func clearing(_ request: Request) -> [String] {
        let secure = secure(request)
        return [setCookie(refreshCookie, "", path: refreshPath, maxAge: 0, secure: secure),
                setCookie(streamCookie, "", path: streamPath, maxAge: 0, secure: secure)]
    }

    /// `Set-Cookie` headers, one per cookie (they cannot be folded into one line).
    static func apply(_ cookies: [String], to headers: inout HTTPFields) {
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
    }

    // MARK: - The stream's cookie

    static func tag(_ sessionId: UUID, key: SymmetricKey) -> String {
        let message = Data("event-stream-session\0\(sessionId.uuidString.lowercased())".utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func streamValue(_ sessionId: UUID, keys: [SymmetricKey]) -> String? {
        keys.first.map { "\(sessionId.uuidString.lowercased()).\(tag(sessionId, key: $0))" }
    }

    /// The session the stream's cookie names, when its signature is one of the server's keys'.
    static func streamSession(_ value: String, keys: [SymmetricKey]) -> UUID? {
        let parts = value.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let sessionId = UUID(uuidString: String(parts[0])) else { return nil }
        let given = Array(parts[1].utf8)
        for key in keys {
            let expected = Array(tag(sessionId, key: key).utf8)
            // Compared in constant time.
            if expected.count == given.count, zip(expected, given).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 { return sessionId }
        }
        return nil
    }

    // MARK: - Where a request comes from

    /// Refuses (403) a request another origin's page sent, or one that does not say where it comes from.
    static func checkOrigin(_ request: Request) throws {
        if let site = request.headers[.secFetchSite], site != "same-origin" {
            throw AuthError.forbidden("this request came from another site (Sec-Fetch-Site: \(site.prefix(40)))")
        }
        guard let origin = request.headers[.origin], origin != "null" else {
            throw AuthError.forbidden("a cookie-authenticated request must carry the page's Origin")
        }
        let host = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map { $0.lowercased() }
        let targets = [request.headers[.forwardedHost], request.head.authority, request.headers[.host]]
            .compactMap { $0?.lowercased().split(separator: ",").first?.trimmingCharacters(in: .whitespaces) }
        guard let host, targets.contains(host) else {
            throw AuthError.forbidden("this request came from another origin (\(origin.prefix(80)))")
        }
    }
}
