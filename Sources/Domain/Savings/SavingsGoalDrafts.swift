import Foundation

// The rules a goal's drafts alone decide, each collecting every field's error. What needs the
// goal (who may ask, the digits of its currency, its plan's due dates, today) stays with
// `SavingsGoalDecider`, which reports the draft's errors with its own.

extension SavingsGoalFields: ValidatedInput where Name == String, Code == Currency, Amount == Int64, Day == LocalDate {
    public static func validated(from draft: SavingsGoalDraft) -> Result<NewSavingsGoal, ValidationFailure> {
        var errors = FieldErrors()
        let name = draft.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name { errors.add(TextRules.labelError(name, field: "name", maxLength: 100)) } else { errors.add(FieldError("name", "is required")) }
        errors.add(TextRules.optionalLabelError(draft.emoji, field: "emoji", maxLength: 16))
        // Without a currency the target's digits cannot be judged: refused with what came before.
        guard let code = draft.currency else { return .failure(ValidationFailure(errors.errors + [FieldError("currency", "is required")])) }
        guard let currency = Currency(code) else {
            return .failure(ValidationFailure(errors.errors + [FieldError("currency", "must be an ISO 4217 code such as EUR")]))
        }
        let target = errors.read(draft.targetAmount) { text throws(ValidationFailure) in try Money.parseMinorUnits(text, currency: currency, field: "target_amount") }
        let date = errors.read(draft.targetDate) { text throws(ValidationFailure) in try SavingsRules.date(text, field: "target_date") }
        return errors.result {
            name.map { NewSavingsGoal(name: $0, emoji: draft.emoji, currency: currency, targetAmount: target, targetDate: date) }
        }
    }
}

extension SavingsGoalChangeFields: CheckedInput where Amount == DecimalAmount, Day == LocalDate {
    public static var fieldOrder: [String] { ["currency", "name", "emoji", "target_amount", "target_date"] }

    public static func checked(from draft: SavingsGoalChangeDraft) -> Result<Checked<SavingsGoalChange>, ValidationFailure> {
        var errors = FieldErrors()
        if draft.changesCurrency { errors.add(FieldError("currency", "cannot be changed; create a new goal")) }
        let name = draft.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name { errors.add(TextRules.labelError(name, field: "name", maxLength: 100)) }
        errors.add(TextRules.optionalLabelError(draft.emoji.newValue, field: "emoji", maxLength: 16))
        let target = errors.read(draft.targetAmount) { text throws(ValidationFailure) in try DecimalAmount(text, field: "target_amount") }
        let date = errors.read(draft.targetDate) { text throws(ValidationFailure) in try SavingsRules.date(text, field: "target_date") }
        return .success(errors.checked(SavingsGoalChange(name: name, emoji: draft.emoji, targetAmount: target, targetDate: date)))
    }
}

extension SavingsPlanFields: CheckedInput where Amount == DecimalAmount, Month == LocalMonth {
    public static var fieldOrder: [String] { ["amount", "anchor_day", "every_months", "start_month", "end_month"] }

    public static func checked(from draft: SavingsPlanDraft) -> Result<Checked<NewSavingsPlan>, ValidationFailure> {
        var errors = FieldErrors()
        if draft.amount == nil { errors.add(FieldError("amount", "is required")) }
        let amount = errors.read(draft.amount) { text throws(ValidationFailure) in try DecimalAmount(text) }
        if draft.anchorDay == nil { errors.add(FieldError("anchor_day", "is required")) }
        if case .day(let day)? = draft.anchorDay, !(1...31).contains(day) {
            errors.add(FieldError("anchor_day", "must be from 1 to 31 or \"last\""))
        }
        let every = draft.everyMonths ?? 1
        if !(1...12).contains(every) { errors.add(FieldError("every_months", "must be from 1 to 12")) }
        if draft.startMonth == nil { errors.add(FieldError("start_month", "is required")) }
        let start = errors.read(draft.startMonth) { text throws(ValidationFailure) in try SavingsRules.month(text, field: "start_month") }
        let end = errors.read(draft.endMonth) { text throws(ValidationFailure) in try SavingsRules.month(text, field: "end_month") }
        if let start, let end, end < start { errors.add(FieldError("end_month", "must not be before start_month")) }
        return .success(errors.checked(NewSavingsPlan(amount: amount, anchorDay: draft.anchorDay, everyMonths: every, startMonth: start, endMonth: end)))
    }
}

extension SavingsMovementFields: CheckedInput where Kind == SavingsGoal.Movement.Kind, Amount == DecimalAmount, Day == LocalDate {
    public static var fieldOrder: [String] { ["kind", "currency", "amount", "date", "note", "occurrence"] }

    public static func checked(from draft: SavingsMovementDraft) -> Result<Checked<NewSavingsMovement>, ValidationFailure> {
        var errors = FieldErrors()
        if draft.kind == nil { errors.add(FieldError("kind", "is required")) }
        let kind = errors.parse(draft.kind, field: "kind", rule: "must be deposit or withdrawal", SavingsGoal.Movement.Kind.init(rawValue:))
        if draft.amount == nil { errors.add(FieldError("amount", "is required")) }
        let amount = errors.read(draft.amount) { text throws(ValidationFailure) in try DecimalAmount(text) }
        if draft.date == nil { errors.add(FieldError("date", "is required")) }
        let date = errors.read(draft.date) { text throws(ValidationFailure) in try SavingsRules.date(text, field: "date") }
        errors.add(TextRules.optionalLabelError(draft.note, field: "note", maxLength: 1000))
        var occurrence = errors.read(draft.occurrence) { text throws(ValidationFailure) in try SavingsRules.date(text, field: "occurrence") }
        if occurrence != nil, kind == .withdrawal {
            errors.add(FieldError("occurrence", "only a deposit pays an occurrence"))
            occurrence = nil
        }
        return .success(errors.checked(NewSavingsMovement(kind: kind, amount: amount, currency: draft.currency, date: date, note: draft.note,
                                                          occurrence: occurrence)))
    }
}

extension SavingsInvitee: CheckedInput {
    public static let fieldOrder = ["email"]

    public static func checked(from draft: SavingsInvitee) -> Result<Checked<SavingsInvitee>, ValidationFailure> {
        let typed = draft.email.trimmingCharacters(in: .whitespacesAndNewlines)
        var errors = FieldErrors()
        if !Email.isPlausible(Email.normalize(typed)) { errors.add(FieldError("email", "must be an email address")) }
        return .success(errors.checked(SavingsInvitee(email: typed)))
    }
}

/// The dates and months savings accepts anywhere: the plan is walked month by month.
enum SavingsRules {
    static let firstDate = SavingsSchedule.firstMonth.firstDay
    static let lastDate = SavingsSchedule.lastMonth.lastDay

    static func date(_ text: String, field: String) throws(ValidationFailure) -> LocalDate {
        guard let date = LocalDate(text) else { throw ValidationFailure(field, "must be a date as YYYY-MM-DD") }
        guard date >= firstDate, date <= lastDate else { throw ValidationFailure(field, "must be from \(firstDate) to \(lastDate)") }
        return date
    }

    static func month(_ text: String, field: String) throws(ValidationFailure) -> LocalMonth {
        guard let month = LocalMonth(text) else { throw ValidationFailure(field, "must be a month as YYYY-MM") }
        guard month >= SavingsSchedule.firstMonth, month <= SavingsSchedule.lastMonth else {
            throw ValidationFailure(field, "must be from \(SavingsSchedule.firstMonth) to \(SavingsSchedule.lastMonth)")
        }
        return month
    }
}
