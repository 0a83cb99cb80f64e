import Crypto
import Domain
import Foundation
import JWTKit

/// Claims of an access token. Time claims are checked against the injected clock, not here.
public struct AccessClaims: JWTPayload, Equatable {
    public var iss: IssuerClaim
    public var aud: AudienceClaim
    public var sub: SubjectClaim
    public var jti: IDClaim
    public var exp: ExpirationClaim
    public var nbf: NotBeforeClaim
    public var iat: IssuedAtClaim
    /// The session (refresh-token family) the token belongs to; revoking it ends the token too.
    public var sid: String

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// One signing key: an id and an HMAC secret.
public struct SigningKey: Sendable {
    public var kid: String
    public var secret: String
    public init(kid: String, secret: String) {
        self.kid = kid
        self.secret = secret
    }
}

/// Issues and checks access JWTs: HS256 only, a `kid` on every token, several keys so an old
/// one still verifies while a new one signs.
public struct AccessTokens: Sendable {
    public static let issuer = "lifelog"
    public static let audience = "lifelog-api"
    public static let algorithm = "HS256"
    public let lifetime: TimeInterval

    let keys: JWTKeyCollection
    let signingKid: String
    let knownKids: Set<String>
    let clock: any WallClock
    /// Keys for fingerprints of requests kept in the database (idempotency), derived from the
    /// signing keys so a database dump alone cannot test guesses against them. The first is
    /// current; the others match what was stored before a key rotation.
    public let requestFingerprintKeys: [SymmetricKey]
    /// Seals the secrets the server keeps to use again (webhooks' signing secrets).
    public let secretSealer: SecretSealer

    /// `keys[0]` signs; every key verifies.
    public init(keys: [SigningKey], clock: any WallClock, lifetime: TimeInterval = 15 * 60) async throws {
        guard let first = keys.first else { throw AuthError.unauthenticated("no signing key configured") }
        let collection = JWTKeyCollection()
        for key in keys {
            await collection.add(hmac: HMACKey(from: key.secret), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
        }
        self.keys = collection
        self.signingKid = first.kid
        self.knownKids = Set(keys.map(\.kid))
        self.requestFingerprintKeys = keys.map { key in
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data(key.secret.utf8)),
                                   info: Data("lifelog request fingerprint v1".utf8), outputByteCount: 32)
        }
        self.secretSealer = SecretSealer(signingKeys: keys)
        self.clock = clock
        self.lifetime = lifetime
    }

    public func issue(userId: UUID, sessionId: UUID) async throws -> String {
        let now = clock.now()
        let claims = AccessClaims(
            iss: .init(value: Self.issuer), aud: .init(value: [Self.audience]), sub: .init(value: userId.uuidString.lowercased()),
            jti: .init(value: UUID().uuidString.lowercased()), exp: .init(value: now.addingTimeInterval(lifetime)),
            nbf: .init(value: now.addingTimeInterval(-5)), iat: .init(value: now), sid: sessionId.uuidString.lowercased())
        return try await keys.sign(claims, kid: JWKIdentifier(string: signingKid))
    }

    /// The user and session of a valid token. Refuses another algorithm (`none` included), an
    /// unknown key id, a bad signature, another issuer or audience, and expired or early tokens.
    public func verify(_ token: String) async throws -> (userId: UUID, sessionId: UUID) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.decodeHeader(parts[0]) else {
            throw AuthError.unauthenticated("the access token is malformed")
        }
        guard header.alg == Self.algorithm else { throw AuthError.unauthenticated("the access token's algorithm is not accepted") }
        guard let kid = header.kid, knownKids.contains(kid) else { throw AuthError.unauthenticated("the access token's key is unknown") }
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch {
            throw AuthError.unauthenticated("the access token's signature is not valid")
        }
        let now = clock.now()
        guard claims.iss.value == Self.issuer, claims.aud.value.contains(Self.audience) else {
            throw AuthError.unauthenticated("the access token was not issued for this API")
        }
        guard claims.exp.value > now else { throw AuthError.unauthenticated("the access token has expired") }
        guard claims.nbf.value <= now else { throw AuthError.unauthenticated("the access token is not valid yet") }
        guard let userId = UUID(uuidString: claims.sub.value), let sessionId = UUID(uuidString: claims.sid) else {
            throw AuthError.unauthenticated("the access token is malformed")
        }
        return (userId, sessionId)
    }

    struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    static func decodeHeader(_ part: Substring) -> Header? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONDecoder().decode(Header.self, from: data)
    }
}
