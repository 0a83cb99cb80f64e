import Foundation
import HTTPTypes
import OpenAPIRuntime

/// lifelog's credentials as client middleware (the generator does not model authentication):
/// a session's access token as `Authorization: Bearer`, or a device key as `X-API-Key` for the
/// ingestion routes.
public struct Credential: ClientMiddleware {
    public enum Kind: Sendable {
        case bearer(String)
        case deviceKey(String)
    }

    public var kind: Kind?

    public init(_ kind: Kind?) { self.kind = kind }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        switch kind {
        case .bearer(let token)?: request.headerFields[.authorization] = "Bearer \(token)"
        case .deviceKey(let key)?:
            if let name = HTTPField.Name("X-API-Key") { request.headerFields[name] = key }
        case nil: break
        }
        return try await next(request, body, baseURL)
    }
}
