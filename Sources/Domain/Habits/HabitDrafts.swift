import Foundation

/// A freeze as `POST /habits/{id}/freezes` sends it, read by `Habit.Freeze.validated`.
public struct HabitFreezeDraft: Sendable, Decodable {
    public var from: String
    public var to: String
    public var reason: String?

    public init(from: String, to: String, reason: String? = nil) {
        self.from = from
        self.to = to
        self.reason = reason
    }

    enum CodingKeys: CodingKey { case from, to, reason }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decode(String.self, forKey: .from)
        to = try container.decode(String.self, forKey: .to)
        reason = try container.decodeNullable(String.self, forKey: .reason)
    }
}

// The rules a draft alone decides; what needs the habit or today (a start date's window, a
// target on a boolean habit, a freeze before the habit began) stays with `HabitDecider`.

extension HabitFields: ValidatedInput where Kind == HabitEvent.Kind, Day == LocalDate, Time == LocalTime {
    public static func validated(from draft: HabitDraft) -> Result<HabitDefinition, ValidationFailure> {
        var errors = FieldErrors()
        let name = draft.name.trimmingCharacters(in: .whitespacesAndNewlines)
        errors.add(TextRules.labelError(name, field: "name", maxLength: 100))
        let kind = HabitEvent.Kind(rawValue: draft.kind)
        if kind == nil { errors.add(FieldError("kind", "must be boolean or numeric")) }
        if kind == .numeric {
            if let target = draft.target {
                errors.add(HabitFieldRules.amountError(target, field: "target"))
            } else {
                errors.add(FieldError("target", "a numeric habit needs a target above 0"))
            }
        }
        if kind == .boolean, draft.target != nil { errors.add(FieldError("target", "only numeric habits have a target")) }
        errors.add(HabitFieldRules.decorationErrors(emoji: draft.emoji, color: draft.color, unit: draft.unit))
        errors.add(draft.schedule.validationErrors())
        let start = errors.parse(draft.startDate, field: "start_date", rule: LocalDate.inputRule, LocalDate.input)
        let reminder = errors.parse(draft.reminderTime, field: "reminder_time", rule: LocalTime.inputRule, LocalTime.init)
        return errors.result {
            kind.map {
                HabitDefinition(name: name, emoji: draft.emoji, color: draft.color, kind: $0, target: $0 == .numeric ? draft.target : nil,
                                unit: draft.unit, schedule: draft.schedule, startDate: start, reminderTime: reminder)
            }
        }
    }
}

extension HabitChangeFields: ValidatedInput where Day == LocalDate, Time == LocalTime {
    public static func validated(from draft: HabitChangeDraft) -> Result<HabitChange, ValidationFailure> {
        var errors = FieldErrors()
        let name = draft.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name { errors.add(TextRules.labelError(name, field: "name", maxLength: 100)) }
        if let target = draft.target { errors.add(HabitFieldRules.amountError(target, field: "target")) }
        errors.add(HabitFieldRules.decorationErrors(emoji: draft.emoji.newValue, color: draft.color.newValue, unit: draft.unit.newValue))
        let reminder = errors.parse(draft.reminderTime, field: "reminder_time", rule: LocalTime.inputRule, LocalTime.init)
        let from = errors.parse(draft.effectiveFrom, field: "effective_from", rule: LocalDate.inputRule, LocalDate.input)
        if let schedule = draft.schedule { errors.add(schedule.validationErrors()) }
        return errors.result {
            HabitChange(name: name, emoji: draft.emoji, color: draft.color, target: draft.target, unit: draft.unit, reminderTime: reminder,
                        schedule: draft.schedule, effectiveFrom: from)
        }
    }
}

extension Habit.Freeze: ValidatedInput {
    public static func validated(from draft: HabitFreezeDraft) -> Result<Habit.Freeze, ValidationFailure> {
        var errors = FieldErrors()
        let start = errors.parse(draft.from, field: "from", rule: LocalDate.inputRule, LocalDate.input)
        let end = errors.parse(draft.to, field: "to", rule: LocalDate.inputRule, LocalDate.input)
        if let start, let end, end < start { errors.add(FieldError("to", "must not be before from")) }
        errors.add(TextRules.optionalLabelError(draft.reason, field: "reason", maxLength: 200))
        return errors.result {
            guard let start, let end else { return nil }
            return Habit.Freeze(from: start, to: end, reason: draft.reason)
        }
    }
}
