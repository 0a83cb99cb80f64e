import Core
import Domain
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
        } catch let thrown {
            var error = thrown, userLanguage: Language?
            if let inUserLanguage = thrown as? InUserLanguage {
                error = inUserLanguage.underlying
                userLanguage = inUserLanguage.language
            }
            if let http = error as? HTTPError, http.status == .notFound {
                let allowed = routes.methods(matching: request.uri.path)
                if !allowed.isEmpty {
                    var response = try ProblemTitles.localize(
                        Problem.methodNotAllowed("\(request.method) is not allowed on \(request.uri.path)."), for: request, userLanguage: userLanguage)
                        .response(from: request, context: context)
                    response.headers[.allow] = allowed.joined(separator: ", ")
                    return response
                }
            }
            if let problem = ProblemMapping.problem(for: error) {
                if problem.statusCode == 503 {
                    context.logger.warning(error is CancellationError ? "request cut at shutdown" : "database unavailable",
                                           metadata: ["error": "\(String(reflecting: error))"])
                }
                return try ProblemTitles.localize(problem, for: request, userLanguage: userLanguage).response(from: request, context: context)
            }
            context.logger.error("unhandled error", metadata: [
                "error": "\(String(reflecting: error))", "path": "\(request.uri.path)",
            ])
            return try ProblemTitles.localize(Problem.internalError, for: request, userLanguage: userLanguage).response(from: request, context: context)
        }
    }
}

/// Carries the caller's own language out to `ProblemMiddleware`, which sits outside the
/// middleware that finds out who is calling. It answers with the underlying error's status, for
/// any middleware in between that reads a thrown error's status.
struct InUserLanguage: HTTPResponseError {
    var underlying: any Error
    var language: Language

    var status: HTTPResponse.Status { ProblemMapping.problem(for: underlying)?.status ?? .internalServerError }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try ProblemTitles.localize(ProblemMapping.problem(for: underlying) ?? .internalError, for: request, userLanguage: language)
            .response(from: request, context: context)
    }
}

/// After authentication: a failed request from a known user gets its problem titled in the
/// user's language when `?lang=` and `Accept-Language` name none we speak (DESIGN §5).
struct UserLanguageMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let profiles: ProfileService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            // No lookup when the query decides anyway, or when the database is what failed.
            guard let userId = context.identity?.userId, request.uri.queryParameters.get("lang") == nil,
                  ProblemMapping.problem(for: error)?.statusCode != 503,
                  let language = try? await profiles.user(userId).profile.language, language != .en else { throw error }
            throw InUserLanguage(underlying: error, language: language)
        }
    }
}

/// Refuses bodies over the configured size with 413, before any handler reads them.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let general: Int
    /// Ingestion batches are larger than any other request (5,000 samples are about 1.5 MB).
    let ingestion: Int
    static var ingestionPrefix: String { "/api/v1/ingest/" }
    /// The apps' own upload paths (`ClientCatalog`): a health-sync upload repeats a day of
    /// samples and up to 90 nights, GymDashSync a year of days.
    static var clientIngestionPrefixes: [String] { ["/api/ingest/"] }
    static var clientIngestionPaths: Set<String> { ["/health", "/health/workouts", "/api/health"] }
    /// An export brought back in (`POST /api/v1/import`): years of records in one body.
    static var importPath: String { "/api/v1/import" }

    static func isIngestion(_ path: String) -> Bool {
        path.hasPrefix(ingestionPrefix) || path == importPath || clientIngestionPaths.contains(path)
            || clientIngestionPrefixes.contains { path.hasPrefix($0) }
    }

    init(limit: Int, ingestionLimit: Int) {
        general = limit
        ingestion = max(limit, ingestionLimit)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let limit = Self.isIngestion(request.uri.path) ? ingestion : general
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
