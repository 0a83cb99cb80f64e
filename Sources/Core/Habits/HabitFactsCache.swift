import Domain
import Foundation
import Projections

/// The logs and freezes of habits, kept per habit with the version they were read at. Every
/// habit event bumps `rm_habits.version`, so a cached entry whose version still matches the row
/// is exactly what the database holds; `GET /habits` then reads 30 small rows, not two years of
/// logs. Bounded, and safe with several server instances (the version comes from the database).
///
/// The derived state of a habit on a day (streaks walk the calendar from the habit's start) is
/// kept too, by habit, version, day and week start: it changes only when one of those does, so
/// ten years of history cost one walk per habit per day, not one per request.
///
/// The logs are bounded by their number, not by habits: 200 habits with ten years of logs are
/// half a million days (about 100 MiB in the server), 30 habits with two years fifteen thousand.
/// One per server, shared by the habits routes, Today and the reminder job, so a log's answer
/// keeps them all current and the bound holds for the process.
public actor HabitFactsCache {
    struct StateKey: Hashable {
        var habitId: UUID
        var version: Int64
        var day: LocalDate
        var weekStart: Int
    }
    struct Entry: Sendable {
        var version: Int64
        var entries: HabitsReadModel.Entries
    }

    private var entries: [UUID: Entry] = [:]
    /// Logged days and freezes held in `entries`.
    private var held = 0
    /// Habits whose logs were read from the database and stored here, since the start.
    private(set) var habitsRead = 0
    private var states: [StateKey: HabitState] = [:]
    private let capacity: Int
    private let stateCapacity: Int

    /// `capacity`: logged days and freezes; `stateCapacity`: derived states.
    /// Cold reads of one owner's habits take turns (see `HabitService.facts`).
    let coldReads = AsyncGates()

    public init(capacity: Int = 1_000_000, stateCapacity: Int = 20_000) {
        self.capacity = capacity
        self.stateCapacity = stateCapacity
    }

    private static func size(_ entry: Entry) -> Int { entry.entries.values.count + entry.entries.freezes.count }

    /// The cached entries that are current for these versions, looked up by key; the ids
    /// missing are stale.
    func current(_ versions: [(UUID, Int64)]) -> [UUID: Entry] {
        var found: [UUID: Entry] = [:]
        for (id, version) in versions {
            if let entry = entries[id], entry.version == version { found[id] = entry }
        }
        return found
    }

    func store(_ fresh: [UUID: Entry]) {
        habitsRead += fresh.count
        let adding = fresh.values.reduce(0) { $0 + Self.size($1) }
        if held + adding > capacity {
            // Crude but bounded: drop everything; the next reads refill what is in use.
            entries.removeAll()
            held = 0
        }
        for (id, entry) in fresh {
            held += Self.size(entry) - (entries[id].map(Self.size) ?? 0)
            entries[id] = entry
        }
    }

    /// Moves a cached entry read at `version` to `newVersion` by applying what was appended in
    /// between, so the answer to a log does not reload the habit's years of logs. An entry at
    /// another version is left alone (the next read reloads it).
    func advance(_ habitId: UUID, from version: Int64, to newVersion: Int64, _ apply: (inout HabitsReadModel.Entries) -> Void) {
        guard var entry = entries[habitId], entry.version == version else { return }
        let before = Self.size(entry)
        apply(&entry.entries)
        entry.version = newVersion
        held += Self.size(entry) - before
        entries[habitId] = entry
    }

    func states(_ keys: [StateKey]) -> [StateKey: HabitState] {
        var found: [StateKey: HabitState] = [:]
        for key in keys { found[key] = states[key] }
        return found
    }

    func store(_ fresh: [StateKey: HabitState]) {
        if states.count + fresh.count > stateCapacity { states.removeAll(keepingCapacity: true) }
        states.merge(fresh) { _, new in new }
    }
}
