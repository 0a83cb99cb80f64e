import Core
import HTTPTypes
import Hummingbird

/// Finds out who is calling. A device key (prefix `lld_`) may come as `Authorization: Bearer`,
/// `X-API-Key`, `api-key` (Health Auto Export's name) or `?key=`; anything else after Bearer is an access token; more than one
/// credential is refused. A credential that is
/// present but wrong is remembered, and raised by the route's context only if the route needs
/// an identity; no credential leaves the identity empty for that context to refuse.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let sessions: SessionService

    /// Probes and scrapers need no identity: a credential sent to them is not checked, so they
    /// never wait on the database for it (a probe with a bearer token during an outage still gets
    /// its answer at once).
    static let operationalPaths: Set<String> = ["/healthz", "/readyz", "/metrics"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.operationalPaths.contains(request.uri.path) { return try await next(request, context) }
        var context = context
        do {
            // Two credentials could name two callers; which one wins would be a guess, and a
            // wrong one beside a right one would go unnoticed. A repeated one is two as well.
            let authorization = request.headers[.authorization]
            let headerKey = request.headers[.apiKey] ?? request.headers[.apiKeyPlain], queryKey = request.uri.queryParameters.get("key").map { String($0) }
            let sent = request.headers[values: .authorization].count + request.headers[values: .apiKey].count
                + request.headers[values: .apiKeyPlain].count
                + request.uri.queryParameters.getAll("key").count
            guard sent <= 1 else {
                throw AuthError.unauthenticated("send one credential: Authorization, X-API-Key or ?key=, not several")
            }
            if let authorization {
                guard authorization.lowercased().hasPrefix("bearer ") else {
                    throw AuthError.unauthenticated("use Authorization: Bearer <token>")
                }
                let token = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
                context.identity = token.hasPrefix("lld_")
                    ? try await sessions.authenticate(deviceKey: token)
                    : try await sessions.authenticate(accessToken: token)
            } else if let key = headerKey ?? queryKey {
                context.identity = try await sessions.authenticate(deviceKey: key)
            }
        } catch let failure as AuthError {
            context.authFailure = failure
        }
        return try await next(request, context)
    }
}
