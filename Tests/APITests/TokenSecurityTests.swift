import API
import Core
import Crypto
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct TokenSecurityTests {
    static let secret = "test-secret-0123456789-0123456789-abcdef"

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A token made by hand, to try what the server must refuse.
    static func forge(header: String, payload: String, sign: (Data) -> Data) -> String {
        let signingInput = base64url(Data(header.utf8)) + "." + base64url(Data(payload.utf8))
        return signingInput + "." + base64url(sign(Data(signingInput.utf8)))
    }

    static func claims(sub: UUID, sid: UUID, now: Date, iss: String = "lifelog", aud: String = "lifelog-api") -> String {
        let t = Int(now.timeIntervalSince1970)
        return #"{"iss":"\#(iss)","aud":["\#(aud)"],"sub":"\#(sub.uuidString.lowercased())","jti":"x","exp":\#(t + 600),"nbf":\#(t - 5),"iat":\#(t),"sid":"\#(sid.uuidString.lowercased())"}"#
    }

    @Test func tokensAreRefusedUnlessHS256WithAKnownKeyAndValidClaims() async throws {
        let clock = MutableClock(Date(timeIntervalSince1970: 1_800_000_000))
        let tokens = try await AccessTokens(keys: [SigningKey(kid: "k1", secret: Self.secret)], clock: clock)
        let user = UUID(), session = UUID()
        let good = try await tokens.issue(userId: user, sessionId: session)
        let verified = try await tokens.verify(good)
        #expect(verified.userId == user)
        #expect(verified.sessionId == session)

        let payload = Self.claims(sub: user, sid: session, now: clock.now())
        let hs256 = { (data: Data) in Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: Data(Self.secret.utf8)))) }
        let hs384 = { (data: Data) in Data(HMAC<SHA384>.authenticationCode(for: data, using: SymmetricKey(data: Data(Self.secret.utf8)))) }
        // A hand-made HS256 token with the right key passes: the forgeries below differ in one thing each.
        let handMade = Self.forge(header: #"{"alg":"HS256","typ":"JWT","kid":"k1"}"#, payload: payload, sign: hs256)
        #expect(try await tokens.verify(handMade).userId == user)

        let refused: [(String, String)] = [
            ("alg none", Self.forge(header: #"{"alg":"none","typ":"JWT","kid":"k1"}"#, payload: payload) { _ in Data() }),
            ("another algorithm", Self.forge(header: #"{"alg":"HS384","typ":"JWT","kid":"k1"}"#, payload: payload, sign: hs384)),
            ("unknown key id", Self.forge(header: #"{"alg":"HS256","typ":"JWT","kid":"k9"}"#, payload: payload, sign: hs256)),
            ("no key id", Self.forge(header: #"{"alg":"HS256","typ":"JWT"}"#, payload: payload, sign: hs256)),
            ("another issuer", Self.forge(header: #"{"alg":"HS256","typ":"JWT","kid":"k1"}"#,
                                          payload: Self.claims(sub: user, sid: session, now: clock.now(), iss: "evil"), sign: hs256)),
            ("another audience", Self.forge(header: #"{"alg":"HS256","typ":"JWT","kid":"k1"}"#,
                                            payload: Self.claims(sub: user, sid: session, now: clock.now(), aud: "other"), sign: hs256)),
            ("tampered payload", {
                let parts = good.split(separator: ".")
                let other = Self.base64url(Data(Self.claims(sub: UUID(), sid: session, now: clock.now()).utf8))
                return "\(parts[0]).\(other).\(parts[2])"
            }()),
            ("wrong secret", Self.forge(header: #"{"alg":"HS256","typ":"JWT","kid":"k1"}"#, payload: payload) { data in
                Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: Data("another-secret-of-enough-length-000".utf8))))
            }),
        ]
        for (what, token) in refused {
            await #expect(throws: AuthError.self, "\(what)") { try await tokens.verify(token) }
        }

        // Time is the injected clock's: 15 minutes later the token has expired; before nbf it is not valid yet.
        clock.advance(by: 15 * 60 + 1)
        await #expect(throws: AuthError.unauthenticated("the access token has expired")) { try await tokens.verify(good) }
        clock.advance(by: -(15 * 60 + 1) - 60)
        await #expect(throws: AuthError.unauthenticated("the access token is not valid yet")) { try await tokens.verify(good) }
    }

    @Test func anOldKeyStillVerifiesWhileANewOneSigns() async throws {
        let clock = MutableClock(Date())
        let old = SigningKey(kid: "2026-01", secret: Self.secret)
        let new = SigningKey(kid: "2026-06", secret: "a-newer-secret-0123456789-0123456789-xyz")
        let before = try await AccessTokens(keys: [old], clock: clock)
        let after = try await AccessTokens(keys: [new, old], clock: clock)
        let oldToken = try await before.issue(userId: UUID(), sessionId: UUID())
        _ = try await after.verify(oldToken)
        let newToken = try await after.issue(userId: UUID(), sessionId: UUID())
        #expect(AccessTokensHeader.kid(newToken) == "2026-06")
        await #expect(throws: AuthError.self) { try await before.verify(newToken) }
    }

    @Test func withNoKeyConfiguredADevKeyIsGeneratedAndKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-keys-\(UUID().uuidString)")
        let first = try SigningKeyConfiguration.keys(environment: [:], dataDirectory: directory, logger: TestDatabase.logger)
        let second = try SigningKeyConfiguration.keys(environment: [:], dataDirectory: directory, logger: TestDatabase.logger)
        #expect(first.count == 1)
        #expect(first[0].secret.utf8.count >= 32)
        #expect(first[0].secret == second[0].secret)
        let rotated = try SigningKeyConfiguration.keys(
            environment: ["JWT_KEYS": "new=\(Self.secret)x,old=\(Self.secret)"], dataDirectory: directory, logger: TestDatabase.logger)
        #expect(rotated.map(\.kid) == ["new", "old"])
        #expect(throws: SigningKeyConfiguration.Invalid.self) {
            try SigningKeyConfiguration.keys(environment: ["JWT_SECRET": "short"], dataDirectory: directory, logger: TestDatabase.logger)
        }
    }

    @Test func anExpiredAccessTokenIs401ThroughHTTP() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("exp@example.com").string("access_token"))
            #expect(try await http.call(.get, "/api/v1/me", token: token).status == .ok)
            harness.clock.advance(by: 16 * 60)
            let expired = try await http.call(.get, "/api/v1/me", token: token)
            #expect(expired.status == .unauthorized)
            #expect(expired.string("detail") == "the access token has expired")
        }
    }
}

enum AccessTokensHeader {
    static func kid(_ token: String) -> String? {
        guard let part = token.split(separator: ".").first else { return nil }
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["kid"] as? String
    }
}
