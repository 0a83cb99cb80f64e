import Core
import Hummingbird

/// Counts a request behind a trusted proxy by its client's address (`TrustedProxies`), for every
/// throttle after it; with no proxy configured, it changes nothing.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let proxies: TrustedProxies

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard !proxies.isEmpty else { return try await next(request, context) }
        var context = context
        context.remoteAddress = proxies.client(peer: context.remoteAddress, forwardedFor: request.headers[values: .xForwardedFor])
        return try await next(request, context)
    }
}
