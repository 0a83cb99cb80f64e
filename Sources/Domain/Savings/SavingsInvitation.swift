import Foundation

/// An invitation to share a goal. Sharing needs the invited person's consent: the owner invites
/// an account by email, and it becomes a member only by accepting, within `lifetime`. Until then
/// the owner knows only the address they typed and the invitation's status, never the invitee's
/// name or id, and the invitee cannot see or touch the goal.
public struct SavingsInvitation: Sendable, Equatable {
    public enum Answer: String, Sendable, Codable { case accepted, declined }

    /// `pending` until answered or expired; an invitee who declined or let it expire can be
    /// invited again (the new invitation replaces the old one).
    public enum Status: String, Sendable, Codable { case pending, accepted, declined, expired }

    /// How long an invitation can be accepted: 14 days (336 hours) from when it was sent, on the
    /// server's clock. Long enough for someone who opens the app once a week or so, short enough
    /// that a forgotten invitation does not stay open for good.
    public static let lifetime: TimeInterval = 14 * 86_400

    public var id: UUID
    /// The invited account.
    public var invitee: UUID
    /// The address as the owner typed it (trimmed).
    public var email: String
    public var invitedAt: Date
    public var expiresAt: Date
    public var answer: Answer?
    public var answeredAt: Date?

    public init(id: UUID, invitee: UUID, email: String, invitedAt: Date, expiresAt: Date, answer: Answer? = nil, answeredAt: Date? = nil) {
        self.id = id
        self.invitee = invitee
        self.email = email
        self.invitedAt = invitedAt
        self.expiresAt = expiresAt
        self.answer = answer
        self.answeredAt = answeredAt
    }

    /// The status at `now`: an answer stays; an open invitation expires at `expiresAt`.
    public func status(at now: Date) -> Status {
        switch answer {
        case .accepted?: .accepted
        case .declined?: .declined
        case nil: now < expiresAt ? .pending : .expired
        }
    }

    /// When an invitation sent at `now` is sent and expires.
    public static func window(from now: Date) -> (invitedAt: Date, expiresAt: Date) {
        let invitedAt = toTheSecond(now)
        return (invitedAt, invitedAt.addingTimeInterval(lifetime))
    }

    /// Instants of invitations are kept to the second, as the log writes them, so a decision and
    /// what is read back agree.
    public static func toTheSecond(_ instant: Date) -> Date {
        Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down))
    }
}
