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
actor HabitFactsCache {
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
    private var states: [StateKey: HabitState] = [:]
    private let capacity: Int

    init(capacity: Int = 20_000) { self.capacity = capacity }

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
        if entries.count + fresh.count > capacity {
            // Crude but bounded: drop everything; the next reads refill what is in use.
            entries.removeAll(keepingCapacity: true)
        }
        entries.merge(fresh) { _, new in new }
    }

    /// Moves a cached entry read at `version` to `newVersion` by applying what was appended in
    /// between, so the answer to a log does not reload the habit's years of logs. An entry at
    /// another version is left alone (the next read reloads it).
    func advance(_ habitId: UUID, from version: Int64, to newVersion: Int64, _ apply: (inout HabitsReadModel.Entries) -> Void) {
        guard var entry = entries[habitId], entry.version == version else { return }
        apply(&entry.entries)
        entry.version = newVersion
        entries[habitId] = entry
    }

    func states(_ keys: [StateKey]) -> [StateKey: HabitState] {
        var found: [StateKey: HabitState] = [:]
        for key in keys { found[key] = states[key] }
        return found
    }

    func store(_ fresh: [StateKey: HabitState]) {
        if states.count + fresh.count > capacity { states.removeAll(keepingCapacity: true) }
        states.merge(fresh) { _, new in new }
    }
}
