import Domain
import Foundation
import Projections

extension HabitService {
    /// Active habits on each of `dates`: those due that day, and whether each is done, read once
    /// and computed per day by the same calculator as `/habits?date=`.
    public func reminderDays(_ owner: UUID, _ dates: [LocalDate]) async throws -> [LocalDate: [ReminderAgenda.HabitDay]] {
        let calendar = try await calendar(owner)
        return try await reminderDays([owner: (calendar, dates)])[owner] ?? [:]
    }

    /// The same for the reminder job's batch of users, in a few statements whatever its size:
    /// every owner's rows at once, and the logs of those not in the cache at once.
    public func reminderDays(_ owners: [UUID: (calendar: UserCalendar, dates: [LocalDate])]) async throws -> [UUID: [LocalDate: [ReminderAgenda.HabitDay]]] {
        let rowsByOwner = try await habits.activeRows(owners: Array(owners.keys))
        let all = rowsByOwner.flatMap { owner, rows in rows.map { (owner, $0) } }
        var entries = await cache.current(all.map { ($0.1.id, $0.1.version) })
        let stale = all.filter { entries[$0.1.id] == nil }
        if !stale.isEmpty {
            let fresh = try await habits.entries(owners: stale.map(\.0), stale.map(\.1))
            // As in `facts`: cached only when no event came between the row and its entries.
            let now = try await habits.versions(owners: stale.map(\.0), stale.map(\.1.id))
            var loaded: [UUID: HabitFactsCache.Entry] = [:]
            for (_, row) in stale { loaded[row.id] = .init(version: row.version, entries: fresh[row.id] ?? .none) }
            await cache.store(loaded.filter { now[$0.key] == $0.value.version })
            entries.merge(loaded) { _, new in new }
        }
        var days: [UUID: [LocalDate: [ReminderAgenda.HabitDay]]] = [:]
        for (owner, rows) in rowsByOwner {
            guard let (calendar, dates) = owners[owner] else { continue }
            let withFacts = rows.map { ($0, Self.facts($0, entries[$0.id]?.entries, weekStart: calendar.weekStart)) }
            for date in dates {
                days[owner, default: [:]][date] = withFacts.compactMap { row, facts in
                    let state = HabitCalculator.state(facts, today: date)
                    guard state.dueToday, date >= facts.start else { return nil }
                    return .init(id: row.id, name: row.name, completed: state.completedToday, reminderTime: row.reminderTime)
                }
            }
        }
        return days
    }
}
