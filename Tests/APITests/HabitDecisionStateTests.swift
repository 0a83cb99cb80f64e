@testable import API
@testable import Core
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
@testable import Projections
import Testing
import TestSupport

/// Habits decide on their read model (`HabitsReadModel.decisionState`: the row, its freezes, and
/// of its logs only the days a command looks at), not on a fold of their stream. Over random
/// command sequences the loaded state equals the fold of the habit's own events (`evolve`) at
/// the same version, its logs narrowed to the days asked for, and a rebuild of the read model
/// in the middle changes nothing (issue 25 §4).
@Suite struct HabitDecisionStateTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func theReadModelsStateIsTheFoldOfTheStream(seed: UInt64) async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2026-03-20T09:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "habit-fold-\(seed)@example.com"))
            let habits = harness.services.habits
            let readModel = HabitsReadModel(client: harness.client, logger: TestDatabase.logger)
            var random = CommandSequenceRandom(seed: seed)
            var ids: [UUID] = []
            var freezes: [UUID: [UUID]] = [:]
            var compared = 0, logged = 0
            // Every day the sequence logs on: the loaded state is asked for all of them.
            let days = (1...19).compactMap { LocalDate("2026-03-\(String(format: "%02d", $0))") }

            func check(_ step: Int) async throws {
                for id in ids {
                    guard let (habit, version) = try await readModel.decisionState(owner, id, dates: days) else { continue }
                    var folded = try await habits.commands.folded(HabitDecider.self, HabitService.stream(id, owner: owner))
                    folded.state?.loggedDates.formIntersection(days)
                    compared += 1
                    #expect(folded.streamVersion == version, "seed \(seed), step \(step): versions")
                    #expect(folded.state == habit, "seed \(seed), step \(step): the read model's habit is not the fold of its stream")
                }
            }

            func day() -> LocalDate { days[random.next(days.count)] }

            for step in 0..<40 {
                let context = CommandContext(userId: owner)
                let pick = ids.isEmpty ? 0 : random.next(8)
                let id = ids.isEmpty ? UUID() : ids[random.next(ids.count)]
                do {
                    switch pick {
                    case 0:
                        let numeric = random.next(2) == 0
                        let view = try await habits.create(context, HabitDefinition(
                            name: "Habit \(step)", kind: numeric ? .numeric : .boolean, target: numeric ? 5 : nil, unit: numeric ? "km" : nil,
                            schedule: [HabitSchedule.daily, .timesPerWeek(3), .everyNDays(2)][random.next(3)], startDate: LocalDate(year: 2026, month: 3, day: 1)))
                        ids.append(view.id)
                    case 1, 2:
                        _ = try await habits.log(context, id, date: day(), value: Decimal(1 + random.next(4)))
                        logged += 1
                    case 3:
                        _ = try await habits.removeLog(context, id, date: day())
                    case 4:
                        _ = try await habits.update(context, id, change: HabitChange(name: "Renamed \(step)"))
                    case 5:
                        let from = random.next(15) + 1
                        let (freeze, _) = try await habits.addFreeze(context, id, Habit.Freeze(from: days[from - 1],
                                                                      to: days[min(from + random.next(4), days.count) - 1], reason: nil))
                        freezes[id, default: []].append(freeze)
                    case 6:
                        guard let freeze = freezes[id]?.popLast() else { continue }
                        _ = try await habits.removeFreeze(context, id, freezeId: freeze)
                    default:
                        _ = try await habits.setArchived(context, id, archived: random.next(2) == 0)
                    }
                } catch let error as any ProblemDescribing {
                    // A command the rules refuse (a log on a day without a schedule, a freeze over
                    // a logged day) is part of a random sequence.
                    _ = error
                }
                try await check(step)
                if step == 20 {
                    // Rebuilt from the log halfway: the decisions after it load the same states.
                    try await harness.rebuild(HabitsProjector())
                    try await check(step)
                }
            }
            #expect(ids.count >= 2 && compared >= 40 && logged >= 3,
                    "the sequence made habits, logged and compared their states (\(ids.count), \(logged), \(compared))")
        }
    }
}
