import Domain
import Foundation

/// The logs and freezes of habits, kept per habit with the version they were read at. Every
/// habit event bumps `rm_habits.version`, so a cached entry whose version still matches the row
/// is exactly what the database holds; `GET /habits` then reads 30 small rows, not two years of
/// logs. Bounded, and safe with several server instances (the version comes from the database).
actor HabitFactsCache {
    struct Entry: Sendable {
        var version: Int64
        var values: [LocalDate: Decimal]
        var freezes: [ClosedRange<LocalDate>]
    }

    private var entries: [UUID: Entry] = [:]
    private let capacity: Int

    init(capacity: Int = 20_000) { self.capacity = capacity }

    /// The cached entries that are current for these versions; the ids missing are stale.
    func current(_ versions: [UUID: Int64]) -> [UUID: Entry] {
        entries.filter { id, entry in versions[id] == entry.version }
    }

    func store(_ fresh: [UUID: Entry]) {
        if entries.count + fresh.count > capacity {
            // Crude but bounded: drop everything; the next reads refill what is in use.
            entries.removeAll(keepingCapacity: true)
        }
        entries.merge(fresh) { _, new in new }
    }
}
