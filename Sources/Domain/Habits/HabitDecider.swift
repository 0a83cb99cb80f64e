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
        case .log(let date, let value):
            return try logged(habit, date ?? now.today, value, today: now.today)
        case .removeLog(let date):
            // Removing a log that is not there changes nothing, so nothing is stored.
            return habit.loggedDates.contains(date) ? [.logRemoved(.init(habitId: habit.id, date: date))] : []
        case .addFreeze(let id, let freeze):
            return try frozen(habit, id: id, freeze, today: now.today)
        case .removeFreeze(let id):
            guard habit.freezes[id] != nil else { throw ResourceError.notFound }
            return [.freezeRemoved(.init(habitId: habit.id, freezeId: id))]
        }
    }

    /// The definition's fields were checked when it was read (`HabitDefinition.validated`); the
    /// start date's window moves with today, so it is checked here.
    static func created(_ id: UUID, _ definition: HabitDefinition, today: LocalDate) throws -> HabitEvent.Created {
        let start = definition.startDate ?? today
        try ValidationFailure.check([HabitDateWindow(today: today).check(start, field: "start_date")].compactMap { $0 })
        return HabitEvent.Created(habitId: id, definition, startDate: start)
    }

    /// A schedule change applies from its effective date on; earlier periods keep the old one.
    /// Fields sent with the value they already have are not a change; nothing left, no event.
    static func changed(_ habit: Habit, _ change: HabitChange, today: LocalDate) throws -> HabitEvent.Changed? {
        var errors: [FieldError] = []
        if change.target != nil, habit.kind == .boolean { errors.append(FieldError("target", "only numeric habits have a target")) }
        var from = today
        if let effective = change.effectiveFrom {
            from = max(effective, habit.startDate)
            if let error = HabitDateWindow(today: today).checkNotAfter(from, field: "effective_from") { errors.append(error) }
        }
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
            habitId: habit.id, name: differs(change.name, habit.name), emoji: differs(change.emoji.newValue, habit.emoji),
            color: differs(change.color.newValue, habit.color), target: differs(change.target, habit.target),
            unit: differs(change.unit.newValue, habit.unit), reminderTime: differs(change.reminderTime.newValue, habit.reminderTime),
            schedule: schedule, scheduleFrom: schedule == nil ? nil : from, cleared: cleared.isEmpty ? nil : cleared)
        let nothing = HabitEvent.Changed(habitId: habit.id)
        return event == nothing ? nil : event
    }

    static func logged(_ habit: Habit, _ date: LocalDate, _ value: Decimal?, today: LocalDate) throws -> [HabitEvent] {
        var errors: [FieldError] = []
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
    static func frozen(_ habit: Habit, id: UUID, _ freeze: Habit.Freeze, today: LocalDate) throws -> [HabitEvent] {
        var errors: [FieldError] = []
        if freeze.from < habit.startDate { errors.append(FieldError("from", "must not be before the habit's start date \(habit.startDate)")) }
        if let error = HabitDateWindow(today: today).checkNotAfter(freeze.to, field: "to") { errors.append(error) }
        try ValidationFailure.check(errors)
        if habit.freezes.values.contains(where: { $0.from == freeze.from && $0.to == freeze.to }) { return [] }
        return [.freezeAdded(.init(habitId: habit.id, freezeId: id, from: freeze.from, to: freeze.to, reason: freeze.reason))]
    }

    /// The freeze a `.addFreeze` command refers to once decided: the new one, or the same range
    /// already stored.
    public static func freezeId(in habit: Habit, _ freeze: Habit.Freeze, proposed: UUID) -> UUID {
        habit.freezes.first { $0.value.from == freeze.from && $0.value.to == freeze.to }?.key ?? proposed
    }

    public static func evolve(_ state: Habit?, _ event: HabitEvent) -> Habit? {
        if case .created(let created) = event {
            return Habit(created)
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
