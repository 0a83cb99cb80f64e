import Foundation
import Hummingbird
import Logging

/// Turns every error into problem+json: typed errors by `ProblemMapping`, anything else into a
/// 500 that is logged in full and said in one sentence. Never a stack trace to the client.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let http = error as? HTTPError, http.status == .notFound {
                let allowed = routes.methods(matching: request.uri.path)
                if !allowed.isEmpty {
                    var response = try Problem.methodNotAllowed("\(request.method) is not allowed on \(request.uri.path).")
                        .response(from: request, context: context)
                    response.headers[.allow] = allowed.joined(separator: ", ")
                    return response
                }
            }
            if let problem = ProblemMapping.problem(for: error) {
                if problem.statusCode == 503 {
                    context.logger.warning("database unavailable", metadata: ["error": "\(String(reflecting: error))"])
                }
                return try ProblemTitles.localize(problem, for: request).response(from: request, context: context)
            }
            context.logger.error("unhandled error", metadata: [
                "error": "\(String(reflecting: error))", "path": "\(request.uri.path)",
            ])
            return try ProblemTitles.localize(Problem.internalError, for: request).response(from: request, context: context)
        }
    }
}

/// Refuses bodies over the configured size with 413, before any handler reads them.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.tooLarge(limit: limit)
        }
        guard [.post, .put, .patch].contains(request.method) else { return try await next(request, context) }
        var request = request
        do {
            _ = try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw Problem.tooLarge(limit: limit)
        }
        return try await next(request, context)
    }
}
