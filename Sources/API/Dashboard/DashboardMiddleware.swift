import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Serves the web dashboard (`DashboardFiles`): `GET /` the page, `/sw.js` its service worker,
/// `/assets/<version>/<name>` its modules, styles and images. A middleware rather than routes:
/// these are files, not operations of the API, so the OpenAPI document, the isolation guard and
/// the fuzzer (which cover the API) do not list them. Anything else goes on to the router.
struct DashboardMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: DashboardFiles?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else { return try await next(request, context) }
        let path = request.uri.path
        guard path == "/" || path == "/index.html" || path == "/sw.js" || path.hasPrefix("/assets/") else {
            return try await next(request, context)
        }
        guard let files else {
            if path == "/" {
                return Response(status: .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                                body: .init(byteBuffer: ByteBuffer(string: "The dashboard's files were not found beside the executable (lifelog_API.resources/Web).\n")))
            }
            return try await next(request, context)
        }
        switch path {
        case "/", "/index.html":
            return Self.answer(files.index, request: request, cache: "no-cache")
        case "/sw.js":
            return Self.answer(files.serviceWorker, request: request, cache: "no-cache")
        default:
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            // ["", "assets", version, name]
            guard parts.count == 4, let file = files.assets[String(parts[3])] else { return try await next(request, context) }
            // An address of another version (a page loaded before an upgrade) gets today's file, revalidated.
            let current = parts[2] == Substring(files.version)
            return Self.answer(file, request: request, cache: current ? "public, max-age=31536000, immutable" : "no-cache")
        }
    }

    static func answer(_ file: DashboardFiles.File, request: Request, cache: String) -> Response {
        var headers: HTTPFields = [.contentType: file.contentType, .cacheControl: cache, .eTag: file.etag, .vary: "Accept-Encoding"]
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == file.etag || tag == "W/" + file.etag || tag == "*"
        }) {
            return Response(status: .notModified, headers: headers)
        }
        var body = file.body
        if let gzip = file.gzip, Gzip.accepted(request.headers[.acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            body = gzip
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: request.method == .head ? ByteBuffer() : body))
    }
}
