import Domain
import Foundation

// An import's habit commands, through `HabitService` (its command path, as the routes use it):
// the habit is `habitKey`'s, and every reference to it derives the same id from that key.
extension ImportService {
    func habitId(_ owner: UUID, habitKey: String) -> UUID { id(owner, habitKey, "habit") }

    /// Creates the habit with its first schedule, then each later schedule from its date.
    func habitSteps(_ owner: UUID, habitKey: String, _ definition: HabitDefinition, later: [HabitFacts.ScheduleChange]) -> [ImportStep] {
        let habits = self.habits
        let habitId = habitId(owner, habitKey: habitKey)
        let create = ImportStep(habitKey) { context in
            !(try await habits.execute(context, habitId, .create(id: habitId, definition)).appended.isEmpty)
        }
        return [create] + later.map { change in
            ImportStep("\(habitKey)/schedule/\(change.from)") { context in
                let outcome = try await habits.execute(context, habitId, .change(HabitChange(schedule: change.schedule, effectiveFrom: change.from)))
                return !outcome.appended.isEmpty
            }
        }
    }

    func logStep(_ owner: UUID, habitKey: String, date: LocalDate, value: Decimal?) -> ImportStep {
        let habits = self.habits
        let habitId = habitId(owner, habitKey: habitKey)
        return ImportStep("\(habitKey)/log/\(date)") { context in
            do {
                return !(try await habits.execute(context, habitId, .log(date: date, value: value)).appended.isEmpty)
            } catch ResourceError.notFound {
                throw ImportRefusal("habit_id: no habit of this file has this id")
            }
        }
    }

    func freezeStep(_ owner: UUID, key: String, habitKey: String, _ freeze: Habit.Freeze) -> ImportStep {
        let habits = self.habits
        let habitId = habitId(owner, habitKey: habitKey)
        return ImportStep(key) { context in
            do {
                return !(try await habits.execute(context, habitId, .addFreeze(id: context.newId("freeze"), freeze)).appended.isEmpty)
            } catch ResourceError.notFound {
                throw ImportRefusal("habit_id: no habit of this file has this id")
            }
        }
    }

    /// Archives the habit: once its logs are in (an archived habit takes none).
    func habitArchive(_ owner: UUID, habitKey: String) -> ImportStep {
        let habits = self.habits
        let habitId = habitId(owner, habitKey: habitKey)
        return ImportStep("\(habitKey)/archive") { context in
            !(try await habits.execute(context, habitId, .archive).appended.isEmpty)
        }
    }
}
