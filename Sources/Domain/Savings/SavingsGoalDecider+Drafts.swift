import Foundation

// The goal's drafts read into events: a new goal, a change, a plan, a movement; each collects every field's error before it refuses.
extension SavingsGoalDecider {
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
}
