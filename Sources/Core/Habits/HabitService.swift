import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// A habit as the API shows it: its definition and its state on `date`.
public struct HabitView: Sendable {
    public var id: UUID
    public var name: String
    public var emoji: String?
    public var color: String?
    public var kind: HabitEvent.Kind
    public var target: Decimal?
    public var unit: String?
    public var schedule: HabitSchedule
    public var startDate: LocalDate
    public var reminderTime: String?
    public var archived: Bool
    public var version: Int64
    public var date: LocalDate
    public var state: HabitState
}

/// The user's calendar settings, for their logical today.
public struct UserCalendar: Sendable {
    public var timeZone: TimeZone
    public var dayStartHour: Int
    public var weekStart: Int

    public func today(at instant: Date) -> LocalDate {
        LogicalDay.date(of: instant, in: timeZone, dayStartHour: dayStartHour)
    }

    /// The calendar date of `instant` in the user's zone, whatever their day start.
    public func wallDate(at instant: Date) -> LocalDate {
        LogicalDay.date(of: instant, in: timeZone, dayStartHour: 0)
    }

    /// The local time of day of `instant` in the user's zone.
    public func timeOfDay(at instant: Date) -> LocalTime {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = timeZone
        let parts = gregorian.dateComponents([.hour, .minute], from: instant)
        return LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0)
    }

    /// The user's settings from the accounts read model; nil for an unknown user.
    public static func load(_ owner: UUID, client: PostgresClient, logger: Logger) async throws -> UserCalendar? {
        let rows = try await client.query("SELECT timezone, day_start_hour, week_start FROM rm_users WHERE user_id = \(owner)", logger: logger)
        for try await (zone, dayStart, weekStart) in rows.decode((String, Int16, Int16).self) {
            return UserCalendar(timeZone: TimeZone(identifier: zone) ?? .gmt, dayStartHour: Int(dayStart), weekStart: Int(weekStart))
        }
        return nil
    }
}

public enum HabitError: Error, Sendable, Equatable {
    case notFound
    case versionMismatch(current: Int64)
}

/// Habits: the use cases behind `/api/v1/habits`.
public struct HabitService: Sendable {
    let store: PostgresEventStore
    let client: PostgresClient
    let clock: any WallClock
    let logger: Logger
    let cache = HabitFactsCache()

    public init(store: PostgresEventStore, clock: any WallClock, logger: Logger) {
        self.store = store
        self.client = store.client
        self.clock = clock
        self.logger = logger
    }

    public func calendar(_ owner: UUID) async throws -> UserCalendar {
        guard let calendar = try await UserCalendar.load(owner, client: client, logger: logger) else { throw HabitError.notFound }
        return calendar
    }

    // MARK: Commands

    /// A new habit, as `POST /habits` sends it.
    public struct Definition: Sendable, Decodable {
        public var name: String
        public var emoji: String?
        public var color: String?
        public var kind: String
        public var target: Decimal?
        public var unit: String?
        public var schedule: HabitSchedule
        public var startDate: String?
        public var reminderTime: String?
    }

    func stream(_ habitId: UUID, owner: UUID) -> StreamName {
        StreamName(id: HabitEvent.streamId(habitId), ownerId: owner, type: HabitEvent.streamType)
    }

    public func create(_ owner: UUID, _ definition: Definition) async throws -> HabitView {
        let calendar = try await calendar(owner)
        let today = calendar.today(at: clock.now())
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
            if let parsed = LocalDate(raw) {
                start = parsed
                if let error = HabitDateWindow(today: today).check(parsed, field: "start_date") { errors.append(error) }
            } else {
                errors.append(FieldError("start_date", "must be a date as YYYY-MM-DD"))
            }
        }
        var reminder: LocalTime?
        if let raw = definition.reminderTime {
            reminder = LocalTime(raw)
            if reminder == nil { errors.append(FieldError("reminder_time", "must be a time of day as HH:MM")) }
        }
        try ValidationFailure.check(errors)
        let habitId = UUID()
        let event = HabitEvent.Created(
            habitId: habitId, name: name, emoji: definition.emoji, color: definition.color, kind: kind ?? .boolean,
            target: kind == .numeric ? definition.target : nil, unit: definition.unit, schedule: definition.schedule,
            startDate: start, reminderTime: reminder)
        try await store.append(to: stream(habitId, owner: owner), expected: .noStream,
                               events: [try NewEvent(event, metadata: .user(owner))])
        return try await habit(owner, habitId, on: nil)
    }

    /// A partial update: absent fields stay; `null` clears emoji, color, unit or reminder_time.
    public struct Change: Sendable, Decodable {
        public var name: String?
        public var emoji: PatchField<String> = .keep
        public var color: PatchField<String> = .keep
        public var target: Decimal?
        public var unit: PatchField<String> = .keep
        public var reminderTime: PatchField<String> = .keep
        public var schedule: HabitSchedule?
        /// The date a schedule change applies from; default the user's logical today.
        public var effectiveFrom: String?

        enum CodingKeys: String, CodingKey { case name, emoji, color, target, unit, reminderTime, schedule, effectiveFrom }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            emoji = try container.decodePatch(String.self, forKey: .emoji)
            color = try container.decodePatch(String.self, forKey: .color)
            target = try container.decodeIfPresent(Decimal.self, forKey: .target)
            unit = try container.decodePatch(String.self, forKey: .unit)
            reminderTime = try container.decodePatch(String.self, forKey: .reminderTime)
            schedule = try container.decodeIfPresent(HabitSchedule.self, forKey: .schedule)
            effectiveFrom = try container.decodeIfPresent(String.self, forKey: .effectiveFrom)
        }

        var cleared: [HabitEvent.Changed.ClearableField] {
            let fields: [(Bool, HabitEvent.Changed.ClearableField)] =
                [(emoji.isClear, .emoji), (color.isClear, .color), (unit.isClear, .unit), (reminderTime.isClear, .reminderTime)]
            return fields.filter { $0.0 }.map { $0.1 }
        }
    }

    /// A schedule change applies from its effective date on; earlier periods keep the old one.
    public func update(_ owner: UUID, _ habitId: UUID, change: Change, ifMatch: Int64?) async throws -> HabitView {
        let calendar = try await calendar(owner)
        let today = calendar.today(at: clock.now())
        let current = try await habit(owner, habitId, on: today)
        if let ifMatch, ifMatch != current.version { throw HabitError.versionMismatch(current: current.version) }
        var errors: [FieldError] = []
        let name = change.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, let error = TextRules.labelError(name, field: "name", maxLength: 100) { errors.append(error) }
        if change.target != nil, current.kind == .boolean { errors.append(FieldError("target", "only numeric habits have a target")) }
        if let target = change.target, let error = HabitFieldRules.amountError(target, field: "target") { errors.append(error) }
        errors += HabitFieldRules.decorationErrors(emoji: change.emoji.newValue, color: change.color.newValue, unit: change.unit.newValue)
        var reminder: LocalTime?
        if let raw = change.reminderTime.newValue {
            reminder = LocalTime(raw)
            if reminder == nil { errors.append(FieldError("reminder_time", "must be a time of day as HH:MM")) }
        }
        var from = today
        if let raw = change.effectiveFrom {
            if let parsed = LocalDate(raw) {
                from = max(parsed, current.startDate)
                if let error = HabitDateWindow(today: today).checkNotAfter(from, field: "effective_from") { errors.append(error) }
            } else {
                errors.append(FieldError("effective_from", "must be a date as YYYY-MM-DD"))
            }
        }
        if let schedule = change.schedule { errors += schedule.validationErrors() }
        try ValidationFailure.check(errors)
        let event = HabitEvent.Changed(
            habitId: habitId, name: name, emoji: change.emoji.newValue, color: change.color.newValue, target: change.target,
            unit: change.unit.newValue, reminderTime: reminder, schedule: change.schedule,
            scheduleFrom: change.schedule == nil ? nil : from, cleared: change.cleared.isEmpty ? nil : change.cleared)
        do {
            try await store.append(to: stream(habitId, owner: owner), expected: .exact(current.version),
                                   events: [try NewEvent(event, metadata: .user(owner))])
        } catch EventStoreError.wrongExpectedVersion(_, _, let actual) where ifMatch != nil {
            throw HabitError.versionMismatch(current: actual)
        }
        return try await habit(owner, habitId, on: today)
    }

    public func log(_ owner: UUID, _ habitId: UUID, date rawDate: String?, value: Decimal?) async throws -> HabitView {
        let calendar = try await calendar(owner)
        let today = calendar.today(at: clock.now())
        let current = try await habit(owner, habitId, on: today)
        var errors: [FieldError] = []
        var date = today
        if let rawDate {
            if let parsed = LocalDate(rawDate) { date = parsed } else { errors.append(FieldError("date", "must be a date as YYYY-MM-DD")) }
        }
        if date > today { errors.append(FieldError("date", "is in the future (today is \(today))")) }
        if date < current.startDate { errors.append(FieldError("date", "is before the habit's start date \(current.startDate)")) }
        if current.kind == .numeric, value == nil { errors.append(FieldError("value", "a numeric habit needs a value")) }
        if let value, let error = HabitFieldRules.amountError(value, field: "value") { errors.append(error) }
        if current.archived { errors.append(FieldError("habit", "is archived; restore it first")) }
        try ValidationFailure.check(errors)
        if current.kind == .boolean {
            // Logging a boolean habit twice for one date changes nothing.
            let already = try await client.query("""
                SELECT 1 FROM rm_habit_logs WHERE habit_id = \(habitId) AND date = \(date.description)::date
                """, logger: logger)
            for try await _ in already.decode(Int.self) { return try await habit(owner, habitId, on: today) }
        }
        let event = HabitEvent.Logged(habitId: habitId, date: date, value: current.kind == .boolean ? 1 : (value ?? 0))
        try await store.append(to: stream(habitId, owner: owner), expected: .any,
                               events: [try NewEvent(event, metadata: .user(owner))])
        return try await habit(owner, habitId, on: today)
    }

    public func removeLog(_ owner: UUID, _ habitId: UUID, date rawDate: String) async throws -> HabitView {
        guard let date = LocalDate(rawDate) else { throw ValidationFailure("date", "must be a date as YYYY-MM-DD") }
        _ = try await habit(owner, habitId, on: nil)
        let event = HabitEvent.LogRemoved(habitId: habitId, date: date)
        try await store.append(to: stream(habitId, owner: owner), expected: .any,
                               events: [try NewEvent(event, metadata: .user(owner))])
        return try await habit(owner, habitId, on: nil)
    }

    public func setArchived(_ owner: UUID, _ habitId: UUID, archived: Bool) async throws -> HabitView {
        let current = try await habit(owner, habitId, on: nil)
        guard current.archived != archived else { return current }
        let event = archived
            ? try NewEvent(HabitEvent.Archived(habitId: habitId), metadata: .user(owner))
            : try NewEvent(HabitEvent.Restored(habitId: habitId), metadata: .user(owner))
        try await store.append(to: stream(habitId, owner: owner), expected: .exact(current.version), events: [event])
        return try await habit(owner, habitId, on: nil)
    }

    public func addFreeze(_ owner: UUID, _ habitId: UUID, from: String, to: String, reason: String?) async throws -> (UUID, HabitView) {
        var errors: [FieldError] = []
        let start = LocalDate(from), end = LocalDate(to)
        if start == nil { errors.append(FieldError("from", "must be a date as YYYY-MM-DD")) }
        if end == nil { errors.append(FieldError("to", "must be a date as YYYY-MM-DD")) }
        if let start, let end, end < start { errors.append(FieldError("to", "must not be before from")) }
        if let error = TextRules.optionalLabelError(reason, field: "reason", maxLength: 200) { errors.append(error) }
        try ValidationFailure.check(errors)
        _ = try await habit(owner, habitId, on: nil)
        let freezeId = UUID()
        let event = HabitEvent.FreezeAdded(habitId: habitId, freezeId: freezeId, from: start ?? .init(daysSinceEpoch: 0),
                                           to: end ?? .init(daysSinceEpoch: 0), reason: reason)
        try await store.append(to: stream(habitId, owner: owner), expected: .any,
                               events: [try NewEvent(event, metadata: .user(owner))])
        return (freezeId, try await habit(owner, habitId, on: nil))
    }

    public func removeFreeze(_ owner: UUID, _ habitId: UUID, freezeId: UUID) async throws -> HabitView {
        var exists = false
        for try await _ in try await client.query("""
            SELECT 1 FROM rm_habit_freezes WHERE freeze_id = \(freezeId) AND habit_id = \(habitId) AND owner_id = \(owner)
            """, logger: logger).decode(Int.self) { exists = true }
        guard exists else { throw HabitError.notFound }
        let event = HabitEvent.FreezeRemoved(habitId: habitId, freezeId: freezeId)
        try await store.append(to: stream(habitId, owner: owner), expected: .any,
                               events: [try NewEvent(event, metadata: .user(owner))])
        return try await habit(owner, habitId, on: nil)
    }

    // MARK: Queries

    /// Every active habit with its state on `date` (default: the user's logical today).
    public func list(_ owner: UUID, on date: LocalDate?) async throws -> [HabitView] {
        let calendar = try await calendar(owner)
        let day = try Self.day(date, today: calendar.today(at: clock.now()))
        return try await load(owner, habitId: nil, day: day, calendar: calendar, includeArchived: false)
    }

    public func habit(_ owner: UUID, _ habitId: UUID, on date: LocalDate?) async throws -> HabitView {
        let calendar = try await calendar(owner)
        let day = try Self.day(date, today: calendar.today(at: clock.now()))
        guard let view = try await load(owner, habitId: habitId, day: day, calendar: calendar, includeArchived: true).first else {
            throw HabitError.notFound
        }
        return view
    }

    /// The day a read asks about: today unless given, and within the habit date window.
    static func day(_ date: LocalDate?, today: LocalDate) throws -> LocalDate {
        guard let date else { return today }
        if let error = HabitDateWindow(today: today).checkNotAfter(date, field: "date") { throw ValidationFailure([error]) }
        return date
    }

    public func logs(_ owner: UUID, _ habitId: UUID, from: LocalDate, to: LocalDate) async throws -> [(LocalDate, Decimal)] {
        _ = try await habit(owner, habitId, on: nil)
        var result: [(LocalDate, Decimal)] = []
        for try await (date, value) in try await client.query("""
            SELECT date::text, value FROM rm_habit_logs
            WHERE owner_id = \(owner) AND habit_id = \(habitId) AND date BETWEEN \(from.description)::date AND \(to.description)::date
            ORDER BY date
            """, logger: logger).decode((String, Decimal).self) {
            if let day = LocalDate(date) { result.append((day, value)) }
        }
        return result
    }

    /// Each day (or week, for `times_per_week`) from `from` to `to` with its status.
    public func history(_ owner: UUID, _ habitId: UUID, from: LocalDate, to: LocalDate) async throws -> [(LocalDate, LocalDate, HabitPeriod.Status)] {
        let calendar = try await calendar(owner)
        let today = calendar.today(at: clock.now())
        let facts = try await facts(owner, habitId: habitId, calendar: calendar)
        guard let facts = facts.first?.1 else { throw HabitError.notFound }
        // Judged as of today, not as of `to`: a past range's last day is missed, not pending.
        let periods = HabitCalculator.periods(facts, through: today)
        var result: [(LocalDate, LocalDate, HabitPeriod.Status)] = []
        var covered = Set<LocalDate>()
        for period in periods where period.end >= from && period.start <= to {
            result.append((period.start, period.end, period.status))
            var day = period.start
            while day <= period.end { covered.insert(day); day = day.adding(days: 1) }
        }
        var day = from
        while day <= to {
            if !covered.contains(day), day <= today { result.append((day, day, .notScheduled)) }
            day = day.adding(days: 1)
        }
        return result.sorted { $0.0 < $1.0 }
    }

    struct Row {
        var id: UUID
        var name: String
        var emoji: String?
        var color: String?
        var kind: String
        var target: Decimal?
        var unit: String?
        var schedules: String
        var startDate: String
        var reminderTime: String?
        var archived: Bool
        var version: Int64
    }

    func facts(_ owner: UUID, habitId: UUID?, calendar: UserCalendar, includeArchived: Bool = true) async throws -> [(Row, HabitFacts)] {
        var rows: [Row] = []
        for try await r in try await client.query("""
            SELECT habit_id, name, emoji, color, kind, target, unit, schedules::text, start_date::text, reminder_time, archived, version
            FROM rm_habits
            WHERE owner_id = \(owner) AND (\(habitId)::uuid IS NULL OR habit_id = \(habitId)) AND (\(includeArchived) OR NOT archived)
            ORDER BY created_at, habit_id
            """, logger: logger).decode((UUID, String, String?, String?, String, Decimal?, String?, String, String, String?, Bool, Int64).self) {
            rows.append(Row(id: r.0, name: r.1, emoji: r.2, color: r.3, kind: r.4, target: r.5, unit: r.6, schedules: r.7,
                            startDate: r.8, reminderTime: r.9, archived: r.10, version: r.11))
        }
        guard !rows.isEmpty else { return [] }
        var entries = await cache.current(Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.version) }))
        let stale = rows.filter { entries[$0.id] == nil }
        if !stale.isEmpty {
            let fresh = try await loadEntries(owner, stale)
            await cache.store(fresh)
            entries.merge(fresh) { _, new in new }
        }
        return try rows.map { row in
            let schedules = try EventCoding.decode([HabitsProjector.ScheduleEntry].self, from: row.schedules)
            let start = LocalDate(row.startDate) ?? LocalDate(daysSinceEpoch: 0)
            let entry = entries[row.id]
            var facts = HabitFacts(start: start, schedule: schedules.first?.schedule ?? .daily,
                                   target: row.kind == "numeric" ? row.target : nil, values: entry?.values ?? [:],
                                   freezes: entry?.freezes ?? [], weekStart: calendar.weekStart)
            facts.schedules = schedules.map { .init(from: max($0.from, start), schedule: $0.schedule) }
            if facts.schedules.isEmpty { facts.schedules = [.init(from: start, schedule: .daily)] }
            return (row, facts)
        }
    }

    /// Logs and freezes of `rows`, read after their versions (so never older than them).
    func loadEntries(_ owner: UUID, _ rows: [Row]) async throws -> [UUID: HabitFactsCache.Entry] {
        let ids = rows.map(\.id)
        // One row per habit with its dates as day numbers: two years of 30 habits is 30 rows,
        // not 15,000. Boolean habits need no values (every log counts 1).
        let numeric = Set(rows.filter { $0.kind == "numeric" }.map(\.id))
        var values: [UUID: [LocalDate: Decimal]] = [:]
        for try await (id, days, amounts) in try await client.query("""
            SELECT habit_id, array_agg((date - DATE '1970-01-01')::int4), array_agg(value::text)
            FROM rm_habit_logs WHERE owner_id = \(owner) AND habit_id = ANY(\(ids)::uuid[])
            GROUP BY habit_id
            """, logger: logger).decode((UUID, [Int32], [String]).self) {
            var perDay: [LocalDate: Decimal] = [:]
            perDay.reserveCapacity(days.count)
            let exact = numeric.contains(id)
            for (day, amount) in zip(days, amounts) {
                perDay[LocalDate(daysSinceEpoch: Int(day))] = exact ? (Decimal(string: amount) ?? 0) : 1
            }
            values[id] = perDay
        }
        var freezes: [UUID: [ClosedRange<LocalDate>]] = [:]
        for try await (id, from, to) in try await client.query("""
            SELECT habit_id, from_date::text, to_date::text FROM rm_habit_freezes WHERE owner_id = \(owner) AND habit_id = ANY(\(ids)::uuid[])
            """, logger: logger).decode((UUID, String, String).self) {
            if let start = LocalDate(from), let end = LocalDate(to), start <= end { freezes[id, default: []].append(start...end) }
        }
        return Dictionary(uniqueKeysWithValues: rows.map { row in
            (row.id, HabitFactsCache.Entry(version: row.version, values: values[row.id] ?? [:], freezes: freezes[row.id] ?? []))
        })
    }

    func load(_ owner: UUID, habitId: UUID?, day: LocalDate, calendar: UserCalendar, includeArchived: Bool) async throws -> [HabitView] {
        try await facts(owner, habitId: habitId, calendar: calendar, includeArchived: includeArchived).map { row, facts in
            HabitView(
                id: row.id, name: row.name, emoji: row.emoji, color: row.color, kind: HabitEvent.Kind(rawValue: row.kind) ?? .boolean,
                target: facts.target, unit: row.unit, schedule: facts.schedule(on: day).schedule, startDate: facts.start,
                reminderTime: row.reminderTime, archived: row.archived, version: row.version, date: day,
                state: HabitCalculator.state(facts, today: day))
        }
    }
}
