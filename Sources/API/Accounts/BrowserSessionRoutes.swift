import Core
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import Projections

/// `/api/v1/auth/browser/*`: sign in, register, refresh and sign out with the refresh token in
/// a cookie (`BrowserSession`). The answers carry the access token and the user, never the
/// refresh token. Bearer clients keep `/auth/login`, `/auth/refresh`, … unchanged.
extension AccountsArea {
    struct BrowserSessionDTO: ResponseEncodable {
        /// In the `X-Access-Token` header instead when the answer carries a first view: that
        /// answer is large (a year of Today's habits is 100 KB of JSON) and sent gzip'ed, and a
        /// compressed body must hold no secret beside text another user may have written (a
        /// shared goal's name: BREACH); HTTP/1.1 never compresses a header.
        var accessToken: String?
        var tokenType = "Bearer"
        var expiresIn: Int
        var user: UserDTO
        /// `?first=today` on a refresh: the page's first reads, answered with the session.
        var firstView: DashboardFirstView?

        init(_ pair: TokenPair, user: UserRecord, firstView: DashboardFirstView? = nil) {
            accessToken = pair.accessToken
            expiresIn = pair.expiresIn
            self.user = UserDTO(user)
            self.firstView = firstView
        }
    }

    func registerBrowserSession(on api: RouterGroup<AppRequestContext>) {
        // Over 60 lines: the browser session's four routes, a few lines each, beside the cookie rules they share.
        let sessions = accounts.sessions, profiles = accounts.profiles, keys = accounts.requestFingerprintKeys, changeFeed = self.changeFeed
        let services = self.services
        let browser = api.group("auth/browser")

        /// The answer of a new or refreshed session, with its cookies.
        @Sendable func answer(
            _ status: HTTPResponse.Status, _ pair: TokenPair, user: UserRecord, firstView: DashboardFirstView? = nil, request: Request,
            context: AppRequestContext
        ) async throws -> Response {
            let sessionId = if case .user(_, let id) = try await sessions.authenticate(accessToken: pair.accessToken) { id } else { UUID?.none }
            var dto = BrowserSessionDTO(pair, user: user, firstView: firstView)
            var headers: HTTPFields = [.cacheControl: "no-store"]
            if firstView != nil {
                headers[.accessToken] = pair.accessToken
                dto.accessToken = nil
            }
            var response = try EditedResponse(status: status, headers: headers, response: dto).response(from: request, context: context)
            if firstView != nil { try await Gzip.compressIfAccepted(&response, request: request) }
            BrowserSession.apply(BrowserSession.cookies(refreshToken: pair.refreshToken, sessionId: sessionId, keys: keys, request: request),
                                 to: &response.headers)
            return response
        }

        browser.post("login") { request, context in
            try BrowserSession.checkOrigin(request)
            let body = try await request.json(LoginRequest.self, context: context)
            let (user, pair) = try await sessions.login(email: body.email, password: body.password, address: context.remoteAddress)
            return try await answer(.ok, pair, user: user, request: request, context: context)
        }
        browser.post("register") { request, context in
            try BrowserSession.checkOrigin(request)
            let account = try await request.input(NewAccount.self, context: context)
            let (user, pair) = try await sessions.register(account, address: context.remoteAddress)
            return try await answer(.created, pair, user: user, request: request, context: context)
        }
        browser.post("refresh") { request, context in
            try BrowserSession.checkOrigin(request)
            let first = request.query("first")
            if let first, !DashboardFirstView.pages.contains(first) { throw ValidationFailure("first", "must be today") }
            guard let token = BrowserSession.cookie(BrowserSession.refreshCookie, in: request) else {
                throw AuthError.unauthenticated("no session cookie: sign in")
            }
            do {
                let (userId, pair) = try await sessions.refreshSession(token)
                let user = try await profiles.user(userId)
                let firstView = first == nil ? nil : try await DashboardFirstView.compose(request, user: user, services: services)
                return try await answer(.ok, pair, user: user, firstView: firstView, request: request, context: context)
            } catch let error as AuthError {
                // A cookie that no longer works is removed with the refusal.
                var response = try ProblemMapping.problem(for: error).map { try $0.response(from: request, context: context) }
                    ?? Response(status: .unauthorized)
                BrowserSession.apply(BrowserSession.clearing(request), to: &response.headers)
                return response
            }
        }
        browser.post("logout") { request, context in
            try BrowserSession.checkOrigin(request)
            let everywhere = try request.queryFlag("everywhere")
            if let token = BrowserSession.cookie(BrowserSession.refreshCookie, in: request) {
                try await sessions.logout(refreshToken: token, everywhere: everywhere)
                changeFeed.checkSessions()
            }
            var response = Response(status: .noContent, headers: [.cacheControl: "no-store"])
            BrowserSession.apply(BrowserSession.clearing(request), to: &response.headers)
            return response
        }
    }
}
