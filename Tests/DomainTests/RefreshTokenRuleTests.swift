import Domain
import Foundation
import Testing

/// The refresh token's rotation and reuse rules, without a database (issue 25 §3).
@Suite struct RefreshTokenRuleTests {
    let now = Date(timeIntervalSince1970: 1_773_100_000)
    let session = UUID(), user = UUID()

    func token(spent: Bool = false, expiresIn seconds: TimeInterval = 3600, revoked: Bool = false) -> RefreshTokenRule.Token {
        .init(sessionId: session, userId: user, spent: spent, expiresAt: now.addingTimeInterval(seconds), sessionRevoked: revoked)
    }

    @Test func aLiveTokenRotatesInItsSessionForAnotherThirtyDays() {
        #expect(RefreshTokenRule.decide(token(), now: now)
            == .rotate(sessionId: session, userId: user, nextExpiresAt: now.addingTimeInterval(30 * 24 * 3600)))
    }

    @Test func aSpentTokenIsAReplayThatEndsItsFamilyEvenOnceExpiredOrEnded() {
        for replayed in [token(spent: true), token(spent: true, expiresIn: -1), token(spent: true, revoked: true)] {
            #expect(RefreshTokenRule.decide(replayed, now: now) == .revokeFamily(sessionId: session, userId: user))
        }
    }

    @Test func anUnknownExpiredOrEndedTokenIsRefusedAndChangesNothing() {
        #expect(RefreshTokenRule.decide(nil, now: now) == .refuse)
        #expect(RefreshTokenRule.decide(token(expiresIn: 0), now: now) == .refuse)
        #expect(RefreshTokenRule.decide(token(expiresIn: -60), now: now) == .refuse)
        #expect(RefreshTokenRule.decide(token(revoked: true), now: now) == .refuse)
    }
}
