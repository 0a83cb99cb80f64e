import Foundation
import Hummingbird

extension Request {
    /// Decodes a JSON body. Unlike `decode(as:context:)`, a missing or mistyped field stays a
    /// `DecodingError`, which `ProblemMapping` turns into 422 with the field's name.
    func json<T: Decodable>(_ type: T.Type, context: some RequestContext) async throws -> T {
        var request = self
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        guard body.readableBytes > 0 else { throw Problem.badRequest("The request needs a JSON body.") }
        return try AppRequestContext.makeDecoder().decode(T.self, from: Data(buffer: body))
    }
}
