import Domain
import Foundation

extension HabitService {
    /// Active habits on each of `dates`: those due that day, and whether each is done, read once
    /// and computed per day by the same calculator as `/habits?date=`.
    public func reminderDays(_ owner: UUID, _ dates: [LocalDate]) async throws -> [LocalDate: [ReminderAgenda.HabitDay]] {
        let calendar = try await calendar(owner)
        let rows = try await habits.rows(owner, includeArchived: false, after: nil, limit: 10_000)
        let withFacts = try await facts(owner, rows, calendar: calendar)
        var days: [LocalDate: [ReminderAgenda.HabitDay]] = [:]
        for date in dates {
            days[date] = withFacts.compactMap { row, facts in
                let state = HabitCalculator.state(facts, today: date)
                guard state.dueToday, date >= facts.start else { return nil }
                return .init(id: row.id, name: row.name, completed: state.completedToday, reminderTime: row.reminderTime)
            }
        }
        return days
    }
}
