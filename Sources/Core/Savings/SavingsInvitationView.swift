import Domain
import Foundation

/// An invitation as the goal's owner sees it: the address they typed and its status at the
/// server's now, nothing of who the invitee is.
public struct SavingsInvitationView: Sendable {
    public var invitation: SavingsInvitation
    public var status: SavingsInvitation.Status

    public init(_ invitation: SavingsInvitation, at now: Date) {
        self.invitation = invitation
        status = invitation.status(at: now)
    }
}
