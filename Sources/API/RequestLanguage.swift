import Core
import Domain
import Foundation
import Hummingbird

/// The language of server-produced words (DESIGN §5): `?lang=`, then `Accept-Language`, then
/// the user's own, then English. An explicit `?lang=` costs no read of the user's language.
enum RequestLanguage {
    static func resolve(_ request: Request, userLanguage: () async throws -> Language) async throws -> Language {
        let (query, accept) = (request.query("lang"), request.headers[.acceptLanguage])
        if let query, let language = Language(tag: query) { return language }
        return Language.resolve(query: query, acceptLanguage: accept, userLanguage: try await userLanguage())
    }

    static func resolve(_ request: Request, userId: UUID, profiles: ProfileService) async throws -> Language {
        try await resolve(request) { try await profiles.user(userId).profile.language }
    }
}
