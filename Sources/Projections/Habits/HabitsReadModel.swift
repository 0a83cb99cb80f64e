import Domain
import Foundation
import Logging
import EventStore
import PostgresNIO

/// The queries over what `HabitsProjector` writes. Services read habits only through these;
/// every query leads with `owner_id` (DESIGN §7: the read models distribute by owner).
public struct HabitsReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// One habit as stored: the habit as its rules see it (its definition and schedules; no logs
    /// or freezes, which `decisionState` reads for a command), the version of its stream and its
    /// place in the list. Its fields read as the habit's (`row.name`).
    @dynamicMemberLookup
    public struct Row: Sendable {
        public var habit: Habit
        public var version: Int64
        /// The list position: creation time in whole microseconds, then id.
        public var position: Position

        public subscript<Value>(dynamicMember field: KeyPath<Habit, Value>) -> Value { habit[keyPath: field] }
    }

    public struct Position: Sendable, Codable, Equatable {
        public var createdMicros: Int64
        public var id: UUID
        public init(createdMicros: Int64, id: UUID) {
            self.createdMicros = createdMicros
            self.id = id
        }
    }

    /// Habits of `owner` in creation order after `after`; one habit when `habitId` is given.
    public func rows(_ owner: UUID, habitId: UUID? = nil, includeArchived: Bool, after: Position? = nil, limit: Int = 10_000) async throws -> [Row] {
        let afterMicros = after?.createdMicros ?? Int64.min
        let afterId = after?.id ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        var rows: [Row] = []
        for try await r in try await client.rows("""
            SELECT habit_id, name, emoji, color, kind, target, unit, schedules::text, start_date::text, reminder_time, archived, version,
                   (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint
            FROM rm_habits
            WHERE owner_id = \(owner) AND (\(habitId)::uuid IS NULL OR habit_id = \(habitId)) AND (\(includeArchived) OR NOT archived)
              AND ((EXTRACT(EPOCH FROM created_at) * 1000000)::bigint, habit_id) > (\(afterMicros), \(afterId))
            ORDER BY created_at, habit_id
            LIMIT \(limit)
            """, logger: logger).decode(Columns.self) {
            rows.append(try Self.row(r))
        }
        return rows
    }

    /// The active habits of many owners at once (the reminder job's batch), by owner.
    public func activeRows(owners: [UUID]) async throws -> [UUID: [Row]] {
        var rows: [UUID: [Row]] = [:]
        for try await r in try await client.rows("""
            SELECT habit_id, name, emoji, color, kind, target, unit, schedules::text, start_date::text, reminder_time, archived, version,
                   (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint, owner_id
            FROM rm_habits
            WHERE owner_id = ANY(\(owners)) AND NOT archived
            ORDER BY owner_id, created_at, habit_id
            """, logger: logger).decode((UUID, String, String?, String?, String, Decimal?, String?, String, String, String?, Bool, Int64, Int64, UUID).self) {
            rows[r.13, default: []].append(try Self.row((r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9, r.10, r.11, r.12)))
        }
        return rows
    }

    typealias Columns = (UUID, String, String?, String?, String, Decimal?, String?, String, String, String?, Bool, Int64, Int64)

    static func row(_ r: Columns) throws -> Row {
        guard let kind = HabitEvent.Kind(rawValue: r.4) else { throw CorruptData("habit kind", r.4) }
        guard let start = LocalDate(r.8) else { throw CorruptData("habit start date", r.8) }
        let reminder = try r.9.map { raw in
            guard let time = LocalTime(raw) else { throw CorruptData("habit reminder time", raw) }
            return time
        }
        let entries: [HabitsProjector.ScheduleEntry]
        do { entries = try EventCoding.decode([HabitsProjector.ScheduleEntry].self, from: r.7) } catch { throw CorruptData("habit schedules", r.7) }
        guard !entries.isEmpty else { throw CorruptData("habit schedules", r.7) }
        let habit = Habit(id: r.0, name: r.1, emoji: r.2, color: r.3, kind: kind, target: r.5, unit: r.6, reminderTime: reminder, startDate: start,
                          schedules: entries.map { .init(from: max($0.from, start), schedule: $0.schedule) }, archived: r.10)
        return Row(habit: habit, version: r.11, position: Position(createdMicros: r.12, id: r.0))
    }

    /// Logs and freezes of a habit, read after its row (so never older than its version).
    public struct Entries: Sendable {
        /// The day's total per date (boolean habits: 1).
        public var values: [LocalDate: Decimal]
        public var freezes: [UUID: Habit.Freeze]
        public static let none = Entries(values: [:], freezes: [:])
        public var freezeRanges: [ClosedRange<LocalDate>] { freezes.values.map { $0.from...$0.to } }
    }

    public func entries(_ owner: UUID, _ rows: [Row]) async throws -> [UUID: Entries] {
        try await entries(owners: Array(repeating: owner, count: rows.count), rows)
    }

    /// The same for habits of several owners: `owners[i]` owns `rows[i]`, joined as pairs so
    /// the index is probed once per habit, not once per owner and habit.
    public func entries(owners: [UUID], _ rows: [Row]) async throws -> [UUID: Entries] {
        // Arrays of unequal length would pad with NULLs in `unnest` and drop habits silently.
        precondition(owners.count == rows.count, "one owner per habit")
        let ids = rows.map(\.id)
        // One row per habit with its dates as day numbers: two years of 30 habits is 30 rows,
        // not 15,000. Boolean habits need no values (every log counts 1).
        let numeric = Set(rows.filter { $0.kind == .numeric }.map(\.id))
        var result = Dictionary(uniqueKeysWithValues: ids.map { ($0, Entries(values: [:], freezes: [:])) })
        for try await (id, days, amounts) in try await client.rows("""
            SELECT l.habit_id, array_agg((l.date - DATE '1970-01-01')::int4), array_agg(l.value::text)
            FROM unnest(\(owners)::uuid[], \(ids)::uuid[]) AS h(owner_id, habit_id)
            JOIN rm_habit_logs l ON l.owner_id = h.owner_id AND l.habit_id = h.habit_id
            GROUP BY l.habit_id
            """, logger: logger).decode((UUID, [Int32], [String]).self) {
            var perDay: [LocalDate: Decimal] = [:]
            perDay.reserveCapacity(days.count)
            let exact = numeric.contains(id)
            for (day, amount) in zip(days, amounts) {
                if exact {
                    guard let value = Decimal(string: amount) else { throw CorruptData("habit log value", amount) }
                    perDay[LocalDate(daysSinceEpoch: Int(day))] = value
                } else {
                    perDay[LocalDate(daysSinceEpoch: Int(day))] = 1
                }
            }
            result[id]?.values = perDay
        }
        for try await (freezeId, id, from, to, reason) in try await client.rows("""
            SELECT f.freeze_id, f.habit_id, f.from_date::text, f.to_date::text, f.reason
            FROM unnest(\(owners)::uuid[], \(ids)::uuid[]) AS h(owner_id, habit_id)
            JOIN rm_habit_freezes f ON f.owner_id = h.owner_id AND f.habit_id = h.habit_id
            """, logger: logger).decode((UUID, UUID, String, String, String?).self) {
            guard let start = LocalDate(from), let end = LocalDate(to), start <= end else { throw CorruptData("habit freeze", "\(from)..\(to)") }
            result[id]?.freezes[freezeId] = Habit.Freeze(from: start, to: end, reason: reason)
        }
        return result
    }

    /// The habits' versions now. Read after their entries: when a version still equals the one
    /// the entries were asked for, no event came between, so the entries are of that version.
    public func versions(_ owner: UUID, _ ids: [UUID]) async throws -> [UUID: Int64] {
        try await versions(owners: Array(repeating: owner, count: ids.count), ids)
    }

    /// `owners[i]` owns `ids[i]`.
    public func versions(owners: [UUID], _ ids: [UUID]) async throws -> [UUID: Int64] {
        precondition(owners.count == ids.count, "one owner per habit")
        var versions: [UUID: Int64] = [:]
        for try await (id, version) in try await client.rows("""
            SELECT r.habit_id, r.version FROM unnest(\(owners)::uuid[], \(ids)::uuid[]) AS h(owner_id, habit_id)
            JOIN rm_habits r ON r.owner_id = h.owner_id AND r.habit_id = h.habit_id
            """, logger: logger).decode((UUID, Int64).self) {
            versions[id] = version
        }
        return versions
    }

    /// The habit as `HabitDecider` sees it, with the stream version it was read at; nil when
    /// the owner has no such habit. Of its logs only `dates` are read: a decision looks at the
    /// day it logs or removes, and ten years of logs per attempt would make a busy habit slow.
    public func decisionState(_ owner: UUID, _ habitId: UUID, dates: [LocalDate] = []) async throws -> (habit: Habit, version: Int64)? {
        guard let row = try await rows(owner, habitId: habitId, includeArchived: true).first else { return nil }
        // After the row (whose version the append checks), and independent of each other: sent
        // together, so a command on a busy habit holds its stream for one round trip less.
        async let loggedRead = loggedDates(owner, habitId, among: dates)
        async let freezesRead = freezes(owner, habitId)
        let (logged, freezes) = try await (loggedRead, freezesRead)
        var habit = row.habit
        (habit.loggedDates, habit.freezes) = (logged, freezes)
        return (habit, row.version)
    }

    private func loggedDates(_ owner: UUID, _ habitId: UUID, among dates: [LocalDate]) async throws -> Set<LocalDate> {
        var logged = Set<LocalDate>()
        guard !dates.isEmpty else { return logged }
        for try await day in try await client.rows("""
            SELECT (date - DATE '1970-01-01')::int4 FROM rm_habit_logs
            WHERE owner_id = \(owner) AND habit_id = \(habitId) AND date = ANY(\(dates.map(\.description))::date[])
            """, logger: logger).decode(Int32.self) { logged.insert(LocalDate(daysSinceEpoch: Int(day))) }
        return logged
    }

    private func freezes(_ owner: UUID, _ habitId: UUID) async throws -> [UUID: Habit.Freeze] {
        var freezes: [UUID: Habit.Freeze] = [:]
        for try await (freezeId, from, to, reason) in try await client.rows("""
            SELECT freeze_id, from_date::text, to_date::text, reason FROM rm_habit_freezes WHERE owner_id = \(owner) AND habit_id = \(habitId)
            """, logger: logger).decode((UUID, String, String, String?).self) {
            guard let start = LocalDate(from), let end = LocalDate(to), start <= end else { throw CorruptData("habit freeze", "\(from)..\(to)") }
            freezes[freezeId] = Habit.Freeze(from: start, to: end, reason: reason)
        }
        return freezes
    }

    /// A habit's logs between two dates, oldest first.
    public func logs(_ owner: UUID, _ habitId: UUID, from: LocalDate, to: LocalDate) async throws -> [(LocalDate, Decimal)] {
        var result: [(LocalDate, Decimal)] = []
        for try await (date, value) in try await client.rows("""
            SELECT date::text, value FROM rm_habit_logs
            WHERE owner_id = \(owner) AND habit_id = \(habitId) AND date BETWEEN \(from.description)::date AND \(to.description)::date
            ORDER BY rm_habit_logs.date
            """, logger: logger).decode((String, Decimal).self) {
            guard let day = LocalDate(date) else { throw CorruptData("habit log date", date) }
            result.append((day, value))
        }
        return result
    }
}
