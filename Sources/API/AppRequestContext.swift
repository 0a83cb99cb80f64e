import Core
import Foundation
import Hummingbird

/// The request context of every route: JSON with snake_case keys both ways, the caller's
/// address (for throttling) and, once the auth middleware has run, who is calling.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: Identity?
    /// A credential was sent but refused. Only routes that need an identity raise it, so a
    /// client that keeps sending a stale token can still log in, refresh or pair.
    public var authFailure: AuthError?
    /// The connection's peer, or behind a trusted proxy its client (`ClientAddressMiddleware`).
    public internal(set) var remoteAddress: String
    /// Set by the idempotency middleware from the request's Idempotency-Key: the seed of the ids
    /// the command creates, so a retry creates the same ones.
    public var idempotencySeed: [UInt8]?

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    // BodyLimitMiddleware enforces the configured limit before any handler runs.
    public var maxUploadSize: Int { 100 * 1024 * 1024 }

    public var requestDecoder: JSONDecoder { Self.makeDecoder() }
    public var responseEncoder: JSONEncoder { Self.makeEncoder() }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Context of routes for a logged-in user: the identity is not optional, so the compiler checks
/// that handlers have one. Device keys are refused here (403): they are for ingestion only.
public struct UserRequestContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let userId: UUID
    public let sessionId: UUID
    public let remoteAddress: String
    let idempotencySeed: [UInt8]?

    public init(context: AppRequestContext) throws {
        switch context.identity {
        case .user(let userId, let sessionId)?:
            self.userId = userId
            self.sessionId = sessionId
        case .device?:
            throw AuthError.forbidden("device keys may only call ingestion routes")
        case nil:
            throw context.authFailure ?? AuthError.unauthenticated("log in, or send an access token as Authorization: Bearer")
        }
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
        idempotencySeed = context.idempotencySeed
    }

    /// The caller and what of the request a command depends on.
    public func command(ifMatch: Int64? = nil) -> CommandContext {
        CommandContext(userId: userId, idempotencySeed: idempotencySeed, ifMatch: ifMatch)
    }

    public var maxUploadSize: Int { 100 * 1024 * 1024 }
    public var requestDecoder: JSONDecoder { AppRequestContext.makeDecoder() }
    public var responseEncoder: JSONEncoder { AppRequestContext.makeEncoder() }
}

/// Context of ingestion routes: a device key or a user session.
public struct IngestionRequestContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let identity: Identity
    let idempotencySeed: [UInt8]?

    public init(context: AppRequestContext) throws {
        guard let identity = context.identity else {
            throw context.authFailure
                ?? AuthError.unauthenticated("send a device key (Authorization: Bearer, X-API-Key or ?key=) or an access token")
        }
        self.identity = identity
        coreContext = context.coreContext
        idempotencySeed = context.idempotencySeed
    }

    /// The caller and what of the request a command depends on.
    public func command() -> CommandContext {
        CommandContext(userId: identity.userId, idempotencySeed: idempotencySeed)
    }

    /// The device key that sent the request; nil for a user's session.
    public var deviceId: UUID? {
        if case .device(_, let deviceId) = identity { deviceId } else { nil }
    }

    public var maxUploadSize: Int { 100 * 1024 * 1024 }
    public var requestDecoder: JSONDecoder { AppRequestContext.makeDecoder() }
    public var responseEncoder: JSONEncoder { AppRequestContext.makeEncoder() }
}
