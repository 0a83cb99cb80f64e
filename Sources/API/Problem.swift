import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1

/// An RFC 9457 problem+json body. Every error the API answers with is one of these.
public struct Problem: Error, Sendable, Equatable, Encodable {
    public struct FieldError: Sendable, Equatable, Encodable {
        public var field: String
        public var message: String
        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    public var type: String
    public var title: String
    public var statusCode: Int
    public var detail: String?
    public var errors: [FieldError]?
    /// Seconds, for 429 and 503 answers.
    public var retryAfter: Int?

    public init(type: String, title: String, status: Int, detail: String? = nil, errors: [FieldError]? = nil, retryAfter: Int? = nil) {
        self.type = type
        self.title = title
        self.statusCode = status
        self.detail = detail
        self.errors = errors
        self.retryAfter = retryAfter
    }

    enum CodingKeys: String, CodingKey {
        case type, title, detail, errors
        case statusCode = "status"
    }

    static let base = "https://lifelog.dev/problems/"

    public static func badRequest(_ detail: String) -> Problem {
        Problem(type: base + "malformed-request", title: "Malformed request", status: 400, detail: detail)
    }
    public static func notFound(_ detail: String = "No such resource.") -> Problem {
        Problem(type: base + "not-found", title: "Not found", status: 404, detail: detail)
    }
    public static func methodNotAllowed(_ detail: String) -> Problem {
        Problem(type: base + "method-not-allowed", title: "Method not allowed", status: 405, detail: detail)
    }
    public static func conflict(_ detail: String) -> Problem {
        Problem(type: base + "conflict", title: "Conflict", status: 409, detail: detail)
    }
    public static func tooLarge(limit: Int) -> Problem {
        Problem(type: base + "too-large", title: "Request body too large", status: 413, detail: "The body is larger than \(limit) bytes.")
    }
    public static func invalid(_ errors: [FieldError]) -> Problem {
        Problem(type: base + "validation", title: "Invalid request", status: 422,
                detail: errors.map { "\($0.field): \($0.message)" }.joined(separator: "; "), errors: errors)
    }
    public static func databaseUnavailable(_ detail: String = "The database cannot be reached; try again shortly.") -> Problem {
        Problem(type: base + "database-unavailable", title: "Database unavailable", status: 503, detail: detail, retryAfter: 5)
    }
    /// A request still running when the shutdown's grace period is about to end.
    public static let shuttingDown = Problem(
        type: base + "shutting-down", title: "Service unavailable", status: 503,
        detail: "The server is shutting down; try again shortly.", retryAfter: 5)
    public static let internalError = Problem(
        type: base + "internal", title: "Internal error", status: 500, detail: "Something went wrong on our side; it has been logged.")
}

extension Problem: HTTPResponseError {
    public var status: HTTPResponse.Status { .init(code: statusCode) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(self))))
    }
}

extension Problem {
    /// The answer for an error that describes itself; every area's errors do.
    init(_ described: any ProblemDescribing) {
        let fields = described.fieldErrors.map { FieldError(field: $0.field, message: $0.message) }
        self.init(type: Problem.base + described.slug, title: described.title, status: described.status, detail: described.detail,
                  errors: fields.isEmpty ? nil : fields, retryAfter: described.retryAfterSeconds)
    }
}

/// The one place where errors become HTTP answers: errors that describe themselves
/// (`ProblemDescribing`: every area's), and those of the libraries underneath.
public enum ProblemMapping {
    public static func problem(for error: any Error) -> Problem? {
        // Over 60 lines: one case per library error type; the one place errors become HTTP.
        let error = PostgresErrors.unwrap(error)
        switch error {
        case let problem as Problem:
            return problem
        case let http as HTTPError:
            return httpProblem(http)
        // A client's bytes, while the body is read: a chunked body over the limit (a declared
        // Content-Length over it is refused before reading), or framing that is not HTTP/1.1
        // (a bad chunk size, a body cut short). The client's fault, never a 500.
        case is CancellationError:
            // Only a shutdown past its grace period cancels a request: an answer, not a crash.
            return .shuttingDown
        case let strict as StrictJSON.Issue:
            // Not JSON is malformed (400); JSON that cannot be kept as sent names its field (422).
            switch strict {
            case .syntax(let why): return .badRequest("The body is not valid JSON: \(why).")
            case .field(let path, let message): return .invalid([Problem.FieldError(field: path, message: message)])
            }
        case is ConnectionGuard.BodyTimedOut:
            return Problem(type: Problem.base + "request-timeout", title: "Request timeout", status: 408,
                           detail: "The request's body did not arrive in time; the connection is closed.")
        case let tooMany as NIOTooManyBytesError:
            return .tooLarge(limit: tooMany.maxBytes ?? 0)
        case let parser as HTTPParserError:
            return .badRequest("The request is not valid HTTP/1.1 (\(parser)).")
        case let described as any ProblemDescribing:
            return Problem(described)
        case let storeError as EventStoreError:
            switch storeError {
            case .wrongExpectedVersion:
                return .conflict("The resource was changed by another request; reload it and try again.")
            case .eventIdConflict:
                return .conflict("This request id was already used for a different change.")
            case .streamOwnedByAnotherOwner, .ownerErased:
                return .notFound()
            case .invalidEventData:
                return .invalid([Problem.FieldError(field: "body", message: "contains text that cannot be stored (such as a NUL character)")])
            case .emptyAppend, .appendNotFirstWrite:
                return nil
            }
        case let decoding as DecodingError:
            // A missing or mistyped field is invalid input (422); a body that is not JSON is malformed (400).
            switch decoding {
            case .keyNotFound(let key, let context):
                return .invalid([Problem.FieldError(field: path(context.codingPath + [key]), message: "is required")])
            case .typeMismatch(_, let context):
                return .invalid([Problem.FieldError(field: field(context.codingPath), message: "has the wrong type")])
            case .valueNotFound(_, let context):
                // An explicit null where the document allows none.
                return .invalid([Problem.FieldError(field: field(context.codingPath), message: "must not be null")])
            case .dataCorrupted(let context) where !context.codingPath.isEmpty:
                return .invalid([Problem.FieldError(field: path(context.codingPath), message: "is not valid")])
            default:
                return .badRequest(describe(decoding))
            }
        default:
            if PostgresErrors.isConnectionFailure(error) { return .databaseUnavailable() }
            // The statement ran past DATABASE_STATEMENT_TIMEOUT_MS and was cancelled: nothing of
            // it is stored, and the same request may be tried again later.
            if PostgresErrors.sqlState(error) == "57014" {
                return .databaseUnavailable("The database took too long with this request; nothing was stored. Try again shortly.")
            }
            // Text PostgreSQL refuses (a NUL, bad encoding) is bad input, not our failure.
            if ["22021", "22P05"].contains(PostgresErrors.sqlState(error) ?? "") {
                return .invalid([Problem.FieldError(field: "body", message: "contains text that cannot be stored (such as a NUL character)")])
            }
            // No numeric overflow (22003) is the client's: one amount is bounded where it is parsed,
            // and every total the database keeps or computes is numeric, exact at any size. One
            // would be our fault, a logged 500, never a 422 about stored data.
            return nil
        }
    }

    static func httpProblem(_ http: HTTPError) -> Problem {
        switch http.status.code {
        case 404: return .notFound()
        case 405: return .methodNotAllowed(http.body ?? "This method is not allowed here.")
        case 413: return Problem(type: Problem.base + "too-large", title: "Request body too large", status: 413, detail: http.body)
        case 400: return .badRequest(http.body ?? "The request could not be read.")
        default:
            return Problem(type: Problem.base + "http-\(http.status.code)", title: http.status.reasonPhrase, status: http.status.code, detail: http.body)
        }
    }

    static func describe(_ error: DecodingError?) -> String {
        switch error {
        case .keyNotFound(let key, _)?: "Missing field \(snake(key.stringValue))."
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            "Field \(path(context.codingPath)) has the wrong type."
        case .dataCorrupted(let context)?:
            // Foundation's parser also refuses numbers it cannot hold as Decimal (1e128, 5e-324).
            context.codingPath.isEmpty
                ? "The body is not valid JSON, or holds a number too large or too small to read."
                : "Field \(path(context.codingPath)) is not valid."
        default: "The body could not be read."
        }
    }

    /// A field's name in an answer; the body itself when the path is empty.
    static func field(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "body" : path(keys)
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? snake($0.stringValue) }.joined(separator: ".")
    }

    static func snake(_ name: String) -> String {
        name.reduce(into: "") { result, char in
            if char.isUppercase { result += "_" + char.lowercased() } else { result.append(char) }
        }
    }
}
