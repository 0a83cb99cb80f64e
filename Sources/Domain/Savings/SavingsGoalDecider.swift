import Foundation

/// Every rule about changing a savings goal. The state is nil until the goal is created (and
/// again once it is deleted). Who may do what is the member rule (`SavingsGoal.authorize`),
/// asked before anything else is said about the goal: anyone who is neither the owner nor a
/// member gets `notFound`; a member may add movements, delete their own and leave, and gets
/// `forbidden` for the rest. An invitee may only answer their invitation.
public enum SavingsGoalDecider: Decider {
    public static let initial: SavingsGoal? = nil
    /// Dates and months outside these bounds are refused: the plan is walked month by month.
    static let firstDate = SavingsSchedule.firstMonth.firstDay
    static let lastDate = SavingsSchedule.lastMonth.lastDay
    /// Members and pending invitations together.
    public static let maxMembers = 50

    public static func decide(_ state: SavingsGoal?, _ command: SavingsGoalCommand, _ now: DecisionTime) throws -> [SavingsEvent] {
        let actor = command.actor
        if case .create(let id, let draft) = command.action {
            guard state == nil else { throw ResourceError.conflict("A goal with this id already exists.") }
            return [.goalCreated(try created(id, owner: actor, draft))]
        }
        guard let goal = state else { throw ResourceError.notFound }
        switch command.action {
        case .create:
            return []
        case .acceptInvitation(let id):
            return try accepted(goal, id, by: actor, at: now.instant)
        case .declineInvitation(let id):
            return try declined(goal, id, by: actor, at: now.instant)
        case .addMovement(let id, let draft):
            try goal.authorize(actor, to: .addMovement)
            return [.movementAdded(try movement(id, draft, goal: goal, actor: actor, today: now.today))]
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
        case .setPlan(let draft):
            try goal.authorize(actor, to: .manage)
            let plan = try parse(draft, currency: goal.currency)
            return goal.plan.current == plan ? [] : [.planSet(.init(goalId: goal.id, plan: plan))]
        case .endPlan:
            try goal.authorize(actor, to: .manage)
            return goal.plan.current == nil ? [] : [.planEnded(.init(goalId: goal.id, after: now.today))]
        case .invite(let id, let email, let invitee):
            try goal.authorize(actor, to: .manage)
            return try invited(goal, id, email: email, invitee: invitee, at: now.instant)
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
        guard Email.isPlausible(Email.normalize(email)) else { throw ValidationFailure("email", "must be an email address") }
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

    // MARK: Parsing

    static func created(_ id: UUID, owner: UUID, _ draft: SavingsGoalDraft) throws -> SavingsEvent.GoalCreated {
        var errors: [FieldError] = []
        let name = draft.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name { TextRules.labelError(name, field: "name", maxLength: 100).map { errors.append($0) } } else {
            errors.append(FieldError("name", "is required"))
        }
        TextRules.optionalLabelError(draft.emoji, field: "emoji", maxLength: 16).map { errors.append($0) }
        guard let code = draft.currency else { throw ValidationFailure(errors + [FieldError("currency", "is required")]) }
        guard let currency = Currency(code) else {
            throw ValidationFailure(errors + [FieldError("currency", "must be an ISO 4217 code such as EUR")])
        }
        let target = try collect(&errors) { try draft.targetAmount.map { try Money.parseMinorUnits($0, currency: currency, field: "target_amount") } }
        let date = try collect(&errors) { try draft.targetDate.map { try parseDate($0, field: "target_date") } }
        try ValidationFailure.check(errors)
        return SavingsEvent.GoalCreated(goalId: id, ownerId: owner, name: name ?? "", emoji: draft.emoji, currency: currency,
                                        targetAmount: target ?? nil, targetDate: date ?? nil)
    }

    static func changed(_ goal: SavingsGoal, _ change: SavingsGoalChange) throws -> SavingsEvent.GoalChanged? {
        var errors: [FieldError] = []
        if change.changesCurrency { errors.append(FieldError("currency", "cannot be changed; create a new goal")) }
        let name = change.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name { TextRules.labelError(name, field: "name", maxLength: 100).map { errors.append($0) } }
        TextRules.optionalLabelError(change.emoji.newValue, field: "emoji", maxLength: 16).map { errors.append($0) }
        let target = try collect(&errors) { try change.targetAmount.newValue.map { try Money.parseMinorUnits($0, currency: goal.currency, field: "target_amount") } }
        let date = try collect(&errors) { try change.targetDate.newValue.map { try parseDate($0, field: "target_date") } }
        try ValidationFailure.check(errors)
        let event = SavingsEvent.GoalChanged(
            goalId: goal.id, name: name ?? goal.name, emoji: change.emoji.applied(to: goal.emoji),
            targetAmount: change.targetAmount.isClear ? nil : (target ?? nil) ?? goal.targetAmount,
            targetDate: change.targetDate.isClear ? nil : (date ?? nil) ?? goal.targetDate)
        let same = event.name == goal.name && event.emoji == goal.emoji && event.targetAmount == goal.targetAmount
            && event.targetDate == goal.targetDate
        return same ? nil : event
    }

    public static func parse(_ draft: SavingsPlanDraft, currency: Currency) throws -> SavingsPlan {
        var errors: [FieldError] = []
        let amount = try collect(&errors) { () throws(ValidationFailure) -> Int64 in
            guard let text = draft.amount else { throw ValidationFailure("amount", "is required") }
            return try Money.parseMinorUnits(text, currency: currency)
        }
        if draft.anchorDay == nil { errors.append(FieldError("anchor_day", "is required")) }
        if case .day(let day)? = draft.anchorDay, !(1...31).contains(day) {
            errors.append(FieldError("anchor_day", "must be from 1 to 31 or \"last\""))
        }
        let every = draft.everyMonths ?? 1
        if !(1...12).contains(every) { errors.append(FieldError("every_months", "must be from 1 to 12")) }
        let start = try collect(&errors) { try parseMonth(draft.startMonth, field: "start_month") }
        let end = try collect(&errors) { try draft.endMonth.map { try parseMonth($0, field: "end_month") } }
        if let start, let end = end ?? nil, end < start { errors.append(FieldError("end_month", "must not be before start_month")) }
        try ValidationFailure.check(errors)
        guard let amount, let anchor = draft.anchorDay, let start else { throw ValidationFailure(errors) }
        return SavingsPlan(amount: amount, anchorDay: anchor, everyMonths: every, startMonth: start, endMonth: end ?? nil)
    }

    static func movement(_ id: UUID, _ draft: SavingsMovementDraft, goal: SavingsGoal, actor: UUID, today: LocalDate) throws
        -> SavingsEvent.MovementAdded
    {
        guard !goal.movements.contains(where: { $0.id == id }) else { throw ResourceError.conflict("A transaction with this id already exists.") }
        var errors: [FieldError] = []
        let kind = draft.kind.flatMap(SavingsGoal.Movement.Kind.init(rawValue:))
        if kind == nil { errors.append(FieldError("kind", draft.kind == nil ? "is required" : "must be deposit or withdrawal")) }
        if let code = draft.currency, code != goal.currency.code {
            errors.append(FieldError("currency", "must be the goal's currency, \(goal.currency.code)"))
        }
        let amount = try collect(&errors) { () throws(ValidationFailure) -> Int64 in
            guard let text = draft.amount else { throw ValidationFailure("amount", "is required") }
            return try Money.parseMinorUnits(text, currency: goal.currency)
        }
        let date = try collect(&errors) { () throws(ValidationFailure) -> LocalDate in
            guard let text = draft.date else { throw ValidationFailure("date", "is required") }
            let date = try parseDate(text, field: "date")
            if date > today { throw ValidationFailure("date", "must not be after today (\(today))") }
            return date
        }
        TextRules.optionalLabelError(draft.note, field: "note", maxLength: 1000).map { errors.append($0) }
        let occurrence = try collect(&errors) { () throws(ValidationFailure) -> LocalDate? in
            guard let text = draft.occurrence else { return nil }
            let due = try parseDate(text, field: "occurrence")
            if kind == .withdrawal { throw ValidationFailure("occurrence", "only a deposit pays an occurrence") }
            guard goal.plan.occurrences(from: due, through: due).first?.dueDate == due else {
                throw ValidationFailure("occurrence", "is not the due date of an occurrence of this goal's plan")
            }
            return due
        }
        try ValidationFailure.check(errors)
        guard let kind, let amount, let date else { throw ValidationFailure(errors) }
        if kind == .withdrawal {
            let after = goal.movements + [SavingsGoal.Movement(id: id, kind: kind, amount: amount, date: date, occurrence: nil, note: nil,
                                                               actorId: actor, order: .max)]
            guard SavingsGoal.neverNegative(after) else {
                let balance = Money(minorUnits: goal.balance(through: date), currency: goal.currency)
                throw ValidationFailure("amount", "is larger than the balance on \(date) (\(balance)) or leaves a later balance below zero")
            }
        }
        return SavingsEvent.MovementAdded(goalId: goal.id, movementId: id, kind: kind, amount: amount, currency: goal.currency, date: date,
                                          occurrence: occurrence ?? nil, note: draft.note, actorId: actor)
    }

    /// Runs `body`, keeping its validation errors with the others instead of stopping at the first.
    static func collect<T>(_ errors: inout [FieldError], _ body: () throws -> T) throws -> T? {
        do { return try body() } catch let failure as ValidationFailure { errors.append(contentsOf: failure.errors); return nil }
    }

    static func parseDate(_ text: String, field: String) throws(ValidationFailure) -> LocalDate {
        guard let date = LocalDate(text) else { throw ValidationFailure(field, "must be a date as YYYY-MM-DD") }
        guard date >= firstDate, date <= lastDate else { throw ValidationFailure(field, "must be from \(firstDate) to \(lastDate)") }
        return date
    }

    static func parseMonth(_ text: String?, field: String) throws(ValidationFailure) -> LocalMonth {
        guard let text else { throw ValidationFailure(field, "is required") }
        guard let month = LocalMonth(text) else { throw ValidationFailure(field, "must be a month as YYYY-MM") }
        guard month >= SavingsSchedule.firstMonth, month <= SavingsSchedule.lastMonth else {
            throw ValidationFailure(field, "must be from \(SavingsSchedule.firstMonth) to \(SavingsSchedule.lastMonth)")
        }
        return month
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
