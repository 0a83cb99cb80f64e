import Foundation

/// What presenting a refresh token leads to. Tokens rotate: each is spent once for a new pair in
/// the same session (its family); a spent token shown again is a replay, and the whole family
/// ends, the thief's copy and the owner's alike.
public enum RefreshTokenRule {
    /// A refresh token lasts this long from its issue.
    public static let lifetime: TimeInterval = 30 * 24 * 3600

    /// A stored token as the decision needs it.
    public struct Token: Sendable, Equatable {
        public var sessionId: UUID
        public var userId: UUID
        public var spent: Bool
        public var expiresAt: Date
        public var sessionRevoked: Bool
        public init(sessionId: UUID, userId: UUID, spent: Bool, expiresAt: Date, sessionRevoked: Bool) {
            self.sessionId = sessionId
            self.userId = userId
            self.spent = spent
            self.expiresAt = expiresAt
            self.sessionRevoked = sessionRevoked
        }
    }

    public enum Decision: Sendable, Equatable {
        /// Spend the token and issue the next one in its session, expiring at `nextExpiresAt`.
        case rotate(sessionId: UUID, userId: UUID, nextExpiresAt: Date)
        /// A replay: end the session (the family), refuse.
        case revokeFamily(sessionId: UUID, userId: UUID)
        /// Unknown, expired, or its session ended: refuse, change nothing.
        case refuse
    }

    /// Replay is checked first: a spent token is a replay even once expired or ended.
    public static func decide(_ token: Token?, now: Date) -> Decision {
        guard let token else { return .refuse }
        if token.spent { return .revokeFamily(sessionId: token.sessionId, userId: token.userId) }
        if token.expiresAt <= now || token.sessionRevoked { return .refuse }
        return .rotate(sessionId: token.sessionId, userId: token.userId, nextExpiresAt: now.addingTimeInterval(lifetime))
    }
}
