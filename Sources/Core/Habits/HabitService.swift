import Domain
import EventStore
import Foundation
import Logging
import Projections

/// A habit as the API shows it on `date`: the habit as stored (its fields read as the habit's,
/// `view.name`; a target only on a numeric habit), the schedule in force that day and its state.
@dynamicMemberLookup
public struct HabitView: Sendable {
    public var habit: Habit
    public var schedule: HabitSchedule
    public var version: Int64
    public var date: LocalDate
    public var state: HabitState
    /// Where the habit stands in the list, for cursors.
    public var position: HabitsReadModel.Position

    public init(habit: Habit, schedule: HabitSchedule, version: Int64, date: LocalDate, state: HabitState, position: HabitsReadModel.Position) {
        self.habit = habit
        self.schedule = schedule
        self.version = version
        self.date = date
        self.state = state
        self.position = position
    }

    public subscript<Value>(dynamicMember field: KeyPath<Habit, Value>) -> Value { habit[keyPath: field] }
}

/// Habits: load, decide (`HabitDecider`), append; and the reads behind `/api/v1/habits`.
public struct HabitService: AreaService {
    let basis: ServiceBasis
    let habits: HabitsReadModel
    let cache: HabitFactsCache

    public init(_ basis: ServiceBasis, cache: HabitFactsCache = HabitFactsCache()) {
        (self.basis, self.cache) = (basis, cache)
        habits = HabitsReadModel(client: basis.client, logger: basis.logger)
    }

    static func stream(_ habitId: UUID, owner: UUID) -> StreamName {
        StreamName(id: HabitEvent.streamId(habitId), ownerId: owner, type: HabitEvent.streamType)
    }

    @discardableResult
    func execute(_ context: CommandContext, _ habitId: UUID, _ command: HabitCommand) async throws -> CommandPath.Outcome {
        let owner = context.userId
        let time = try await calendar(owner).decisionTime(at: clock.now())
        // The logs a decision looks at: the day a log or a removal is for.
        let dates: [LocalDate] = switch command {
        case .log(let date, _): [date ?? time.today]
        case .removeLog(let date): [date]
        default: []
        }
        return try await commands.run(HabitDecider.self, stream: Self.stream(habitId, owner: owner), command: command, context: context, time: time) {
            guard let (habit, version) = try await habits.decisionState(owner, habitId, dates: dates) else { return .init(state: nil, streamVersion: 0) }
            return .init(state: habit, streamVersion: version)
        }
    }

    // MARK: Commands

    public func create(_ context: CommandContext, _ definition: HabitDefinition) async throws -> HabitView {
        let habitId = context.newId("habit")
        try await execute(context, habitId, .create(id: habitId, definition))
        return try await habit(context.userId, habitId, on: nil)
    }

    public func update(_ context: CommandContext, _ habitId: UUID, change: HabitChange) async throws -> HabitView {
        try await execute(context, habitId, .change(change))
        return try await habit(context.userId, habitId, on: nil)
    }

    public func log(_ context: CommandContext, _ habitId: UUID, date: LocalDate?, value: Decimal?) async throws -> HabitView {
        await carryForward(habitId, try await execute(context, habitId, .log(date: date, value: value)))
        return try await habit(context.userId, habitId, on: nil)
    }

    public func removeLog(_ context: CommandContext, _ habitId: UUID, date: LocalDate) async throws -> HabitView {
        await carryForward(habitId, try await execute(context, habitId, .removeLog(date: date)))
        return try await habit(context.userId, habitId, on: nil)
    }

    /// Applies the logs a command appended to the cached facts it was decided on, the way the
    /// projector applies them to `rm_habit_logs`, so the answer reads the habit row and not its
    /// years of logs. Anything else (or an event that cannot be read) leaves the cache to reload.
    func carryForward(_ habitId: UUID, _ outcome: CommandPath.Outcome) async {
        guard let first = outcome.appended.first, let last = outcome.appended.last else { return }
        var changes: [(LocalDate, Decimal?)] = []
        for event in outcome.appended {
            if event.type == HabitEvent.Logged.type,
               let logged = try? EventUpcasting.decode(HabitEvent.Logged.self, type: event.type, version: event.schemaVersion, json: event.data) {
                changes.append((logged.date, logged.value))
            } else if event.type == HabitEvent.LogRemoved.type,
                      let removed = try? EventUpcasting.decode(HabitEvent.LogRemoved.self, type: event.type, version: event.schemaVersion, json: event.data) {
                changes.append((removed.date, nil))
            } else {
                return
            }
        }
        await cache.advance(habitId, from: first.streamVersion - 1, to: last.streamVersion) { entries in
            for (date, value) in changes {
                entries.values[date] = value.map { (entries.values[date] ?? 0) + $0 }
            }
        }
    }

    public func setArchived(_ context: CommandContext, _ habitId: UUID, archived: Bool) async throws -> HabitView {
        try await execute(context, habitId, archived ? .archive : .restore)
        return try await habit(context.userId, habitId, on: nil)
    }

    /// The freeze's id (the one already stored when the same range was frozen before) and the habit.
    public func addFreeze(_ context: CommandContext, _ habitId: UUID, _ freeze: Habit.Freeze) async throws -> (UUID, HabitView) {
        let proposed = context.newId("freeze")
        try await execute(context, habitId, .addFreeze(id: proposed, freeze))
        guard let (habit, _) = try await habits.decisionState(context.userId, habitId) else { throw ResourceError.notFound }
        return (HabitDecider.freezeId(in: habit, freeze, proposed: proposed), try await self.habit(context.userId, habitId, on: nil))
    }

    public func removeFreeze(_ context: CommandContext, _ habitId: UUID, freezeId: UUID) async throws -> HabitView {
        try await execute(context, habitId, .removeFreeze(id: freezeId))
        return try await habit(context.userId, habitId, on: nil)
    }

    // MARK: Queries

    /// Active habits (and archived ones too with `includeArchived`) with their state on `date`
    /// (default: the user's logical today), in creation order after `after`.
    public func list(_ owner: UUID, on date: LocalDate?, includeArchived: Bool = false, after: HabitsReadModel.Position? = nil,
                     limit: Int = 10_000) async throws -> [HabitView]
    {
        try await list(owner, on: date, calendar: try await calendar(owner), includeArchived: includeArchived, after: after, limit: limit)
    }

    /// The same, for a caller that has read the user's calendar already.
    public func list(_ owner: UUID, on date: LocalDate?, calendar: UserCalendar, includeArchived: Bool = false,
                     after: HabitsReadModel.Position? = nil, limit: Int = 10_000) async throws -> [HabitView]
    {
        let day = try Self.day(date, today: calendar.today(at: clock.now()))
        let rows = try await habits.rows(owner, includeArchived: includeArchived, after: after, limit: limit)
        return try await views(owner, rows, day: day, calendar: calendar)
    }

    public func habit(_ owner: UUID, _ habitId: UUID, on date: LocalDate?) async throws -> HabitView {
        let calendar = try await calendar(owner)
        let day = try Self.day(date, today: calendar.today(at: clock.now()))
        let rows = try await habits.rows(owner, habitId: habitId, includeArchived: true)
        guard let view = try await views(owner, rows, day: day, calendar: calendar).first else { throw ResourceError.notFound }
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
        return try await habits.logs(owner, habitId, from: from, to: to)
    }

    /// Each day (or week, for `times_per_week`) from `from` to `to` with its status.
    public func history(_ owner: UUID, _ habitId: UUID, from: LocalDate, to: LocalDate) async throws -> [(LocalDate, LocalDate, HabitPeriod.Status)] {
        let calendar = try await calendar(owner)
        let today = calendar.today(at: clock.now())
        let rows = try await habits.rows(owner, habitId: habitId, includeArchived: true)
        guard let facts = try await facts(owner, rows, calendar: calendar).first?.1 else { throw ResourceError.notFound }
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

    /// Each row with its facts; logs and freezes come from the cache when the habit's version
    /// has not moved since they were read.
    func facts(_ owner: UUID, _ rows: [HabitsReadModel.Row], calendar: UserCalendar) async throws -> [(HabitsReadModel.Row, HabitFacts)] {
        guard !rows.isEmpty else { return [] }
        var entries = await cache.current(rows.map { ($0.id, $0.version) })
        if rows.contains(where: { entries[$0.id] == nil }) {
            // Ten requests at once after a restart (or another instance's writes) would each read
            // years of logs; one at a time per owner, the later ones find them cached.
            let loaded = try await cache.coldReads.run(owner.uuidString) {
                var found = await cache.current(rows.map { ($0.id, $0.version) })
                let stale = rows.filter { found[$0.id] == nil }
                guard !stale.isEmpty else { return found }
                let fresh = try await habits.entries(owner, stale)
                let versioned = Dictionary(uniqueKeysWithValues: stale.map { row in
                    (row.id, HabitFactsCache.Entry(version: row.version, entries: fresh[row.id] ?? .none))
                })
                // Cached only when no event came between the row and its entries: a log that did
                // would be counted again when its own request carries the cache forward.
                let now = try await habits.versions(owner, stale.map(\.id))
                await cache.store(versioned.filter { now[$0.key] == $0.value.version })
                found.merge(versioned) { _, new in new }
                return found
            }
            entries.merge(loaded) { _, new in new }
        }
        return rows.map { row in (row, Self.facts(row, entries[row.id]?.entries, weekStart: calendar.weekStart)) }
    }

    /// A habit's facts from its row and its logs and freezes (none when it has none).
    static func facts(_ row: HabitsReadModel.Row, _ entry: HabitsReadModel.Entries?, weekStart: Int) -> HabitFacts {
        var facts = HabitFacts(start: row.startDate, schedule: row.schedules[0].schedule, target: row.kind == .numeric ? row.target : nil,
                               values: entry?.values ?? [:], freezes: entry?.freezeRanges ?? [], weekStart: weekStart)
        facts.schedules = row.schedules
        return facts
    }

    func views(_ owner: UUID, _ rows: [HabitsReadModel.Row], day: LocalDate, calendar: UserCalendar) async throws -> [HabitView] {
        let withFacts = try await facts(owner, rows, calendar: calendar)
        let keys = rows.map { HabitFactsCache.StateKey(habitId: $0.id, version: $0.version, day: day, weekStart: calendar.weekStart) }
        let states = await cache.states(keys)
        var computed: [HabitFactsCache.StateKey: HabitState] = [:]
        let views = zip(withFacts, keys).map { pair, key in
            let (row, facts) = pair
            let state = states[key] ?? HabitCalculator.state(facts, today: day)
            if states[key] == nil { computed[key] = state }
            var habit = row.habit
            (habit.target, habit.startDate) = (facts.target, facts.start)
            return HabitView(habit: habit, schedule: facts.schedule(on: day).schedule, version: row.version, date: day, state: state,
                             position: row.position)
        }
        if !computed.isEmpty { await cache.store(computed) }
        return views
    }
}
