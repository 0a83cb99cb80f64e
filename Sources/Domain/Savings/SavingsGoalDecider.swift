import Foundation

/// Every rule about changing a savings goal. The state is nil until the goal is created (and
/// again once it is deleted). Who may do what is the member rule (`SavingsGoal.authorize`),
/// asked before anything else is said about the goal: anyone who is neither the owner nor a
/// member gets `notFound`; a member may add movements, delete their own and leave, and gets
/// `forbidden` for the rest. An invitee may only answer their invitation.
public enum SavingsGoalDecider: Decider {
    public static let initial: SavingsGoal? = nil
    /// Members and pending invitations together.
    public static let maxMembers = 50

    public static func decide(_ state: SavingsGoal?, _ command: SavingsGoalCommand, _ now: DecisionTime) throws -> [SavingsEvent] {
        let actor = command.actor
        if case .create(let id, let new) = command.action {
            guard state == nil else { throw ResourceError.conflict("A goal with this id already exists.") }
            return [.goalCreated(.init(goalId: id, ownerId: actor, name: new.name, emoji: new.emoji, currency: new.currency,
                                       targetAmount: new.targetAmount, targetDate: new.targetDate))]
        }
        guard let goal = state else { throw ResourceError.notFound }
        switch command.action {
        case .create:
            return []
        case .acceptInvitation(let id):
            return try accepted(goal, id, by: actor, at: now.instant)
        case .declineInvitation(let id):
            return try declined(goal, id, by: actor, at: now.instant)
        case .addMovement(let id, let checked):
            try goal.authorize(actor, to: .addMovement)
            return [.movementAdded(try movement(id, checked, goal: goal, actor: actor, today: now.today))]
        case .deleteMovement(let id):
            try goal.authorize(actor, to: .read)
            guard let movement = goal.movements.first(where: { $0.id == id }) else { throw ResourceError.notFound }
            try goal.authorize(actor, to: .deleteMovement(enteredBy: movement.actorId))
            guard SavingsGoal.neverNegative(goal.movements.filter { $0.id != id }) else {
                throw ResourceError.conflict("Deleting this deposit would leave a later withdrawal larger than the balance.")
            }
            return [.movementDeleted(.init(goalId: goal.id, movementId: id))]
        case .removeMember(let userId):
            try goal.authorize(actor, to: .removeMember(userId))
            guard goal.members.contains(userId) else { throw ResourceError.notFound }
            return [.memberRemoved(.init(goalId: goal.id, userId: userId))]
        case .change(let change):
            try goal.authorize(actor, to: .manage)
            return try changed(goal, change).map { [.goalChanged($0)] } ?? []
        case .delete:
            try goal.authorize(actor, to: .manage)
            return [.goalDeleted(.init(goalId: goal.id))]
        case .setPlan(let checked):
            try goal.authorize(actor, to: .manage)
            let plan = try plan(checked, currency: goal.currency)
            return goal.plan.current == plan ? [] : [.planSet(.init(goalId: goal.id, plan: plan))]
        case .endPlan:
            try goal.authorize(actor, to: .manage)
            return goal.plan.current == nil ? [] : [.planEnded(.init(goalId: goal.id, after: now.today))]
        case .invite(let id, let checked, let invitee):
            try goal.authorize(actor, to: .manage)
            return try invited(goal, id, email: try checked.get().email, invitee: invitee, at: now.instant)
        case .withdrawInvitation(let id):
            try goal.authorize(actor, to: .manage)
            guard let invitation = goal.invitations.first(where: { $0.id == id }) else { throw ResourceError.notFound }
            if invitation.status(at: now.instant) == .accepted {
                throw ResourceError.conflict("This invitation was accepted: remove the member instead.")
            }
            return [.invitationWithdrawn(.init(goalId: goal.id, invitationId: id))]
        }
    }

    // MARK: Invitations

    /// The owner's invitation (the member rule has already said the caller is the owner). An
    /// invitation still pending for the account decides nothing (it stands); one declined or
    /// expired is replaced by the new one.
    static func invited(_ goal: SavingsGoal, _ id: UUID, email: String, invitee: UUID?, at now: Date) throws -> [SavingsEvent] {
        guard let invitee else { throw ValidationFailure("email", "no account has this email") }
        if invitee == goal.ownerId { throw ValidationFailure("email", "is the goal's owner") }
        if goal.members.contains(invitee) { throw ResourceError.conflict("The account with this email is already a member of the goal.") }
        let pending = goal.pendingInvitations(at: now)
        if pending.contains(where: { $0.invitee == invitee }) { return [] }
        guard goal.members.count + pending.count < maxMembers else {
            throw ValidationFailure("email", "a goal has at most \(maxMembers) members and pending invitations")
        }
        guard !goal.invitations.contains(where: { $0.id == id }) else { throw ResourceError.conflict("An invitation with this id already exists.") }
        let window = SavingsInvitation.window(from: now)
        return [.memberInvited(.init(goalId: goal.id, invitationId: id, userId: invitee, email: email,
                                           invitedAt: window.invitedAt, expiresAt: window.expiresAt))]
    }

    /// The invitation `id` addressed to `actor`; to anyone else it does not exist.
    static func invitation(_ goal: SavingsGoal, _ id: UUID, for actor: UUID) throws(ResourceError) -> SavingsInvitation {
        guard let invitation = goal.invitations.first(where: { $0.id == id }), invitation.invitee == actor else { throw .notFound }
        return invitation
    }

    static func accepted(_ goal: SavingsGoal, _ id: UUID, by actor: UUID, at now: Date) throws -> [SavingsEvent] {
        let invitation = try invitation(goal, id, for: actor)
        switch invitation.status(at: now) {
        case .pending:
            return [.invitationAccepted(.init(goalId: goal.id, invitationId: id, userId: actor, at: SavingsInvitation.toTheSecond(now)))]
        case .accepted:
            return []
        case .declined:
            throw ResourceError.conflict("You declined this invitation; the goal's owner may invite you again.")
        case .expired:
            throw ResourceError.conflict("This invitation expired at \(Self.instant(invitation.expiresAt)); the goal's owner may invite you again.")
        }
    }

    static func declined(_ goal: SavingsGoal, _ id: UUID, by actor: UUID, at now: Date) throws -> [SavingsEvent] {
        let invitation = try invitation(goal, id, for: actor)
        switch invitation.status(at: now) {
        case .pending:
            return [.invitationDeclined(.init(goalId: goal.id, invitationId: id, userId: actor, at: SavingsInvitation.toTheSecond(now)))]
        case .declined, .expired:
            return []  // nothing to decline any more: it can no longer be accepted
        case .accepted:
            throw ResourceError.conflict("You accepted this invitation; to leave the goal, remove yourself from its members.")
        }
    }

    static func instant(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    // MARK: Evolve

    public static func evolve(_ state: SavingsGoal?, _ event: SavingsEvent) -> SavingsGoal? {
        if case .goalCreated(let created) = event {
            return SavingsGoal(id: created.goalId, ownerId: created.ownerId, name: created.name, emoji: created.emoji, currency: created.currency,
                               targetAmount: created.targetAmount, targetDate: created.targetDate)
        }
        guard var goal = state else { return state }
        goal.version += 1
        switch event {
        case .goalCreated:
            break
        case .goalChanged(let changed):
            goal.name = changed.name
            goal.emoji = changed.emoji
            goal.targetAmount = changed.targetAmount
            goal.targetDate = changed.targetDate
        case .goalDeleted:
            return nil
        case .planSet(let set):
            goal.plan.changes.append(.set(set.plan))
        case .planEnded(let ended):
            goal.plan.changes.append(.ended(after: ended.after))
        case .memberAdded(let added):
            goal.members.insert(added.userId)
        case .memberInvited(let invited):
            goal.invitations.removeAll { $0.invitee == invited.userId }
            goal.invitations.append(SavingsInvitation(id: invited.invitationId, invitee: invited.userId, email: invited.email,
                                                      invitedAt: invited.invitedAt, expiresAt: invited.expiresAt))
        case .invitationAccepted(let accepted):
            goal.answer(accepted.invitationId, .accepted, at: accepted.at)
            goal.members.insert(accepted.userId)
        case .invitationDeclined(let declined):
            goal.answer(declined.invitationId, .declined, at: declined.at)
        case .invitationWithdrawn(let withdrawn):
            goal.invitations.removeAll { $0.id == withdrawn.invitationId }
        case .memberRemoved(let removed):
            goal.members.remove(removed.userId)
            goal.invitations.removeAll { $0.invitee == removed.userId && $0.answer == .accepted }
        case .movementAdded(let m):
            goal.movements.append(.init(id: m.movementId, kind: m.kind, amount: m.amount, date: m.date, occurrence: m.occurrence, note: m.note,
                                        actorId: m.actorId, order: goal.version))
        case .movementDeleted(let deleted):
            goal.movements.removeAll { $0.id == deleted.movementId }
        }
        return goal
    }
}

extension SavingsGoal {
    mutating func answer(_ invitationId: UUID, _ answer: SavingsInvitation.Answer, at: Date) {
        guard let index = invitations.firstIndex(where: { $0.id == invitationId }) else { return }
        invitations[index].answer = answer
        invitations[index].answeredAt = at
    }
}
