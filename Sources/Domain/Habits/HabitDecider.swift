import Foundation

/// Every rule about changing a habit. The state is nil until the habit is created.
public enum HabitDecider: Decider {
    public static let initial: Habit? = nil

    public static func decide(_ state: Habit?, _ command: HabitCommand, _ now: DecisionTime) throws -> [HabitEvent] {
        if case .create(let id, let definition) = command {
            guard state == nil else { throw ResourceError.conflict("A habit with this id already exists.") }
            return [.created(try created(id, definition, today: now.today))]
        }
        guard let habit = state else { throw ResourceError.notFound }
        switch command {
        case .create:
            return []
        case .change(let change):
            return try changed(habit, change, today: now.today).map { [.changed($0)] } ?? []
        case .archive:
            return habit.archived ? [] : [.archived(.init(habitId: habit.id))]
        case .restore:
            return habit.archived ? [.restored(.init(habitId: habit.id))] : []
        case .log(let rawDate, let value):
            return try logged(habit, rawDate, value, today: now.today)
        case .removeLog(let rawDate):
            guard let date = LocalDate(input: rawDate) else { throw ValidationFailure("date", LocalDate.inputRule) }
            // Removing a log that is not there changes nothing, so nothing is stored.
            return habit.loggedDates.contains(date) ? [.logRemoved(.init(habitId: habit.id, date: date))] : []
        case .addFreeze(let id, let from, let to, let reason):
            return try frozen(habit, id: id, from: from, to: to, reason: reason, today: now.today)
        case .removeFreeze(let id):
            guard habit.freezes[id] != nil else { throw ResourceError.notFound }
            return [.freezeRemoved(.init(habitId: habit.id, freezeId: id))]
        }
    }

    static func created(_ id: UUID, _ definition: HabitDefinition, today: LocalDate) throws -> HabitEvent.Created {
        var errors: [FieldError] = []
        let name = definition.name.trimmingCharacters(in: .whitespacesAndNewlines)
        if let error = TextRules.labelError(name, field: "name", maxLength: 100) { errors.append(error) }
        let kind = HabitEvent.Kind(rawValue: definition.kind)
        if kind == nil { errors.append(FieldError("kind", "must be boolean or numeric")) }
        if kind == .numeric {
            if let target = definition.target {
                if let error = HabitFieldRules.amountError(target, field: "target") { errors.append(error) }
            } else {
                errors.append(FieldError("target", "a numeric habit needs a target above 0"))
            }
        }
        if kind == .boolean, definition.target != nil { errors.append(FieldError("target", "only numeric habits have a target")) }
        errors += HabitFieldRules.decorationErrors(emoji: definition.emoji, color: definition.color, unit: definition.unit)
        errors += definition.schedule.validationErrors()
        var start = today
        if let raw = definition.startDate {
            if let parsed = LocalDate(input: raw) {
                start = parsed
                if let error = HabitDateWindow(today: today).check(parsed, field: "start_date") { errors.append(error) }
            } else {
                errors.append(FieldError("start_date", LocalDate.inputRule))
            }
        }
        let reminder = parseTime(definition.reminderTime, field: "reminder_time", into: &errors)
        try ValidationFailure.check(errors)
        return HabitEvent.Created(
            habitId: id, name: name, emoji: definition.emoji, color: definition.color, kind: kind ?? .boolean,
            target: kind == .numeric ? definition.target : nil, unit: definition.unit, schedule: definition.schedule,
            startDate: start, reminderTime: reminder)
    }

    /// A schedule change applies from its effective date on; earlier periods keep the old one.
    /// Fields sent with the value they already have are not a change; nothing left, no event.
    static func changed(_ habit: Habit, _ change: HabitChange, today: LocalDate) throws -> HabitEvent.Changed? {
        var errors: [FieldError] = []
        let name = change.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, let error = TextRules.labelError(name, field: "name", maxLength: 100) { errors.append(error) }
        if change.target != nil, habit.kind == .boolean { errors.append(FieldError("target", "only numeric habits have a target")) }
        if let target = change.target, let error = HabitFieldRules.amountError(target, field: "target") { errors.append(error) }
        errors += HabitFieldRules.decorationErrors(emoji: change.emoji.newValue, color: change.color.newValue, unit: change.unit.newValue)
        let reminder = parseTime(change.reminderTime.newValue, field: "reminder_time", into: &errors)
        var from = today
        if let raw = change.effectiveFrom {
            if let parsed = LocalDate(input: raw) {
                from = max(parsed, habit.startDate)
                if let error = HabitDateWindow(today: today).checkNotAfter(from, field: "effective_from") { errors.append(error) }
            } else {
                errors.append(FieldError("effective_from", LocalDate.inputRule))
            }
        }
        if let schedule = change.schedule { errors += schedule.validationErrors() }
        try ValidationFailure.check(errors)

        func differs<T: Equatable>(_ new: T?, _ old: T?) -> T? { new.flatMap { $0 == old ? nil : $0 } }
        var cleared: [HabitEvent.Changed.ClearableField] = []
        if change.emoji.isClear, habit.emoji != nil { cleared.append(.emoji) }
        if change.color.isClear, habit.color != nil { cleared.append(.color) }
        if change.unit.isClear, habit.unit != nil { cleared.append(.unit) }
        if change.reminderTime.isClear, habit.reminderTime != nil { cleared.append(.reminderTime) }
        let schedule = change.schedule.flatMap { new in
            Habit.replacing(habit.schedules, from: from, with: new) == habit.schedules ? nil : new
        }
        let event = HabitEvent.Changed(
            habitId: habit.id, name: differs(name, habit.name), emoji: differs(change.emoji.newValue, habit.emoji),
            color: differs(change.color.newValue, habit.color), target: differs(change.target, habit.target),
            unit: differs(change.unit.newValue, habit.unit), reminderTime: differs(reminder, habit.reminderTime),
            schedule: schedule, scheduleFrom: schedule == nil ? nil : from, cleared: cleared.isEmpty ? nil : cleared)
        let nothing = HabitEvent.Changed(habitId: habit.id)
        return event == nothing ? nil : event
    }

    static func logged(_ habit: Habit, _ rawDate: String?, _ value: Decimal?, today: LocalDate) throws -> [HabitEvent] {
        var errors: [FieldError] = []
        var date = today
        if let rawDate {
            if let parsed = LocalDate(input: rawDate) { date = parsed } else { errors.append(FieldError("date", LocalDate.inputRule)) }
        }
        if date > today { errors.append(FieldError("date", "is in the future (today is \(today))")) }
        if date < habit.startDate { errors.append(FieldError("date", "is before the habit's start date \(habit.startDate)")) }
        if habit.kind == .numeric, value == nil { errors.append(FieldError("value", "a numeric habit needs a value")) }
        if let value, let error = HabitFieldRules.amountError(value, field: "value") { errors.append(error) }
        if habit.archived { errors.append(FieldError("habit", "is archived; restore it first")) }
        try ValidationFailure.check(errors)
        // Done is done: a boolean habit's second log for a date decides nothing.
        if habit.kind == .boolean, habit.loggedDates.contains(date) { return [] }
        return [.logged(.init(habitId: habit.id, date: date, value: habit.kind == .boolean ? 1 : (value ?? 0)))]
    }

    /// A freeze lies within the habit's window: from its start to a year ahead. The same range
    /// again is the freeze already stored, so nothing new is stored.
    static func frozen(_ habit: Habit, id: UUID, from: String, to: String, reason: String?, today: LocalDate) throws -> [HabitEvent] {
        var errors: [FieldError] = []
        let start = LocalDate(input: from), end = LocalDate(input: to)
        if start == nil { errors.append(FieldError("from", LocalDate.inputRule)) }
        if end == nil { errors.append(FieldError("to", LocalDate.inputRule)) }
        if let start, start < habit.startDate { errors.append(FieldError("from", "must not be before the habit's start date \(habit.startDate)")) }
        if let end, let error = HabitDateWindow(today: today).checkNotAfter(end, field: "to") { errors.append(error) }
        if let start, let end, end < start { errors.append(FieldError("to", "must not be before from")) }
        if let error = TextRules.optionalLabelError(reason, field: "reason", maxLength: 200) { errors.append(error) }
        try ValidationFailure.check(errors)
        guard let start, let end else { return [] }
        if habit.freezes.values.contains(where: { $0.from == start && $0.to == end }) { return [] }
        return [.freezeAdded(.init(habitId: habit.id, freezeId: id, from: start, to: end, reason: reason))]
    }

    /// The freeze a `.addFreeze` command refers to once decided: the new one, or the same range
    /// already stored.
    public static func freezeId(in habit: Habit, from: String, to: String, proposed: UUID) -> UUID {
        guard let start = LocalDate(from), let end = LocalDate(to) else { return proposed }
        return habit.freezes.first { $0.value.from == start && $0.value.to == end }?.key ?? proposed
    }

    static func parseTime(_ raw: String?, field: String, into errors: inout [FieldError]) -> LocalTime? {
        guard let raw else { return nil }
        guard let time = LocalTime(raw) else {
            errors.append(FieldError(field, "must be a time of day as HH:MM"))
            return nil
        }
        return time
    }

    public static func evolve(_ state: Habit?, _ event: HabitEvent) -> Habit? {
        if case .created(let created) = event {
            return Habit(id: created.habitId, name: created.name, emoji: created.emoji, color: created.color, kind: created.kind,
                         target: created.target, unit: created.unit, reminderTime: created.reminderTime, startDate: created.startDate,
                         schedules: [.init(from: created.startDate, schedule: created.schedule)])
        }
        guard var habit = state else { return state }
        switch event {
        case .created:
            return habit
        case .changed(let changed):
            let cleared = Set(changed.cleared ?? [])
            habit.name = changed.name ?? habit.name
            habit.emoji = cleared.contains(.emoji) ? nil : changed.emoji ?? habit.emoji
            habit.color = cleared.contains(.color) ? nil : changed.color ?? habit.color
            habit.unit = cleared.contains(.unit) ? nil : changed.unit ?? habit.unit
            habit.reminderTime = cleared.contains(.reminderTime) ? nil : changed.reminderTime ?? habit.reminderTime
            habit.target = changed.target ?? habit.target
            if let schedule = changed.schedule, let from = changed.scheduleFrom {
                habit.schedules = Habit.replacing(habit.schedules, from: from, with: schedule)
            }
        case .archived:
            habit.archived = true
        case .restored:
            habit.archived = false
        case .logged(let logged):
            habit.loggedDates.insert(logged.date)
        case .logRemoved(let removed):
            habit.loggedDates.remove(removed.date)
        case .freezeAdded(let freeze):
            habit.freezes[freeze.freezeId] = .init(from: freeze.from, to: freeze.to, reason: freeze.reason)
        case .freezeRemoved(let removed):
            habit.freezes[removed.freezeId] = nil
        }
        return habit
    }
}
