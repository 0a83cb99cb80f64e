import Foundation

// The goal's typed inputs decided into events: a new goal, a change, a plan, a movement. Each
// adds what needs the goal (its currency's digits, its plan, today) to what the edge found wrong
// in the draft, and refuses with both in one answer.
extension SavingsGoalDecider {
    static func changed(_ goal: SavingsGoal, _ checked: Checked<SavingsGoalChange>) throws -> SavingsEvent.GoalChanged? {
        var errors: [FieldError] = []
        let target = scaled(checked.input.targetAmount.newValue, in: goal.currency, field: "target_amount", into: &errors)
        let change = try checked.get(adding: errors)
        let event = SavingsEvent.GoalChanged(
            goalId: goal.id, name: change.name ?? goal.name, emoji: change.emoji.applied(to: goal.emoji),
            targetAmount: change.targetAmount.isClear ? nil : target ?? goal.targetAmount,
            targetDate: change.targetDate.applied(to: goal.targetDate))
        let same = event.name == goal.name && event.emoji == goal.emoji && event.targetAmount == goal.targetAmount
            && event.targetDate == goal.targetDate
        return same ? nil : event
    }

    /// A plan version in the goal's currency.
    static func plan(_ checked: Checked<NewSavingsPlan>, currency: Currency) throws -> SavingsPlan {
        var errors: [FieldError] = []
        let amount = scaled(checked.input.amount, in: currency, field: "amount", into: &errors)
        let plan = try checked.get(adding: errors)
        guard let amount, let anchor = plan.anchorDay, let start = plan.startMonth else { throw ValidationFailure("amount", "is required") }
        return SavingsPlan(amount: amount, anchorDay: anchor, everyMonths: plan.everyMonths ?? 1, startMonth: start, endMonth: plan.endMonth)
    }

    static func movement(_ id: UUID, _ checked: Checked<NewSavingsMovement>, goal: SavingsGoal, actor: UUID, today: LocalDate) throws
        -> SavingsEvent.MovementAdded
    {
        guard !goal.movements.contains(where: { $0.id == id }) else { throw ResourceError.conflict("A transaction with this id already exists.") }
        let draft = checked.input
        var errors: [FieldError] = []
        if let code = draft.currency, code != goal.currency.code {
            errors.append(FieldError("currency", "must be the goal's currency, \(goal.currency.code)"))
        }
        let amount = scaled(draft.amount, in: goal.currency, field: "amount", into: &errors)
        if let date = draft.date, date > today { errors.append(FieldError("date", "must not be after today (\(today))")) }
        if let due = draft.occurrence, goal.plan.occurrences(from: due, through: due).first?.dueDate != due {
            errors.append(FieldError("occurrence", "is not the due date of an occurrence of this goal's plan"))
        }
        let movement = try checked.get(adding: errors)
        guard let kind = movement.kind, let amount, let date = movement.date else { throw ValidationFailure("amount", "is required") }
        if kind == .withdrawal {
            let after = goal.movements + [SavingsGoal.Movement(id: id, kind: kind, amount: amount, date: date, occurrence: nil, note: nil,
                                                               actorId: actor, order: .max)]
            guard SavingsGoal.neverNegative(after) else {
                let balance = Money(minorUnits: goal.balance(through: date), currency: goal.currency)
                throw ValidationFailure("amount", "is larger than the balance on \(date) (\(balance)) or leaves a later balance below zero")
            }
        }
        return SavingsEvent.MovementAdded(goalId: goal.id, movementId: id, kind: kind, amount: amount, currency: goal.currency, date: date,
                                          occurrence: movement.occurrence, note: movement.note, actorId: actor)
    }

    /// An amount in minor units of the goal's currency, or nil with why not noted (nil too for an
    /// amount the edge could not read, or none sent).
    static func scaled(_ amount: DecimalAmount?, in currency: Currency, field: String, into errors: inout [FieldError]) -> Int64? {
        guard let amount else { return nil }
        do { return try amount.minorUnits(in: currency, field: field) } catch { errors += error.errors; return nil }
    }
}
