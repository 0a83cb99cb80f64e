import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Headers every answer carries for browsers (issue 28), the API's included (a JSON answer
/// opened in a tab is a page too), and gzip for large JSON reads.
///
/// - `Content-Security-Policy`: scripts, styles, images and connections from this origin only;
///   no inline script or style, no `eval`, no plugins, no `<base>`, forms only to this origin,
///   and no framing (`frame-ancestors 'none'`, with `X-Frame-Options: DENY` for old browsers);
/// - `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
///   `Cross-Origin-Opener-Policy: same-origin`, and a `Permissions-Policy` that asks for nothing.
///
/// A successful JSON answer to a GET of more than 1 KiB is gzip-compressed when the client
/// accepts it (a year of habits is 100 KB of JSON and 10 KB compressed). Only reads: an answer
/// that carries a secret (tokens, keys) comes from a POST and is never compressed (BREACH needs
/// a secret and the attacker's input in one compressed answer); the one POST answer that is, the
/// dashboard's first view, carries its token in a header.
enum BrowserHeaders {
    static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
        "connect-src 'self'", "worker-src 'self'", "manifest-src 'self'", "object-src 'none'", "base-uri 'none'",
        "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static let compressAbove = 1_024
}

struct BrowserHeadersMiddleware<Context: RequestContext>: RouterMiddleware {

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = BrowserHeaders.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.crossOriginOpenerPolicy] = "same-origin"
        response.headers[.permissionsPolicy] = "camera=(), microphone=(), geolocation=(), payment=()"
        guard request.method == .get, response.status == .ok, response.headers[.contentEncoding] == nil,
              response.headers[.contentType]?.hasPrefix("application/json") == true,
              Gzip.accepted(request.headers[.acceptEncoding])
        else { return response }
        try await Gzip.compress(&response)
        return response
    }
}

extension Gzip {
    /// Compresses a JSON answer of more than 1 KiB whose body holds no secret, when the client
    /// accepts gzip (the middleware's reads, and a first view, whose token is in a header).
    static func compressIfAccepted(_ response: inout Response, request: Request) async throws {
        guard response.headers[.contentEncoding] == nil, accepted(request.headers[.acceptEncoding]) else { return }
        try await compress(&response)
    }

    static func compress(_ response: inout Response) async throws {
        if let length = response.body.contentLength, length <= BrowserHeaders.compressAbove { return }
        let collected = CollectingWriter(), body = response.body
        try await body.write(collected)
        let bytes = collected.buffer
        guard bytes.readableBytes > BrowserHeaders.compressAbove, let gzip = compress(bytes) else {
            response.body = .init(byteBuffer: bytes)
            return
        }
        response.headers[.contentEncoding] = "gzip"
        response.headers[.vary] = "Accept-Encoding"
        response.body = .init(byteBuffer: gzip)
    }
}

/// Gathers a body written in parts into one buffer (used within one request, by one task).
private final class CollectingWriter: ResponseBodyWriter {
    var buffer = ByteBuffer()
    func write(_ part: ByteBuffer) async throws {
        var part = part
        buffer.writeBuffer(&part)
    }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
