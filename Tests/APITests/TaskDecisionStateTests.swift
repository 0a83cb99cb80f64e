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

/// Tasks decide on their read model (`TasksReadModel.decisionState`), not on a fold of their
/// stream. That is safe only if the two always agree: over random command sequences, the state
/// loaded for a decision equals the fold of the series' own events (`evolve`) at the same
/// version, and a rebuild of the read model in the middle changes nothing (issue 25 §4).
@Suite struct TaskDecisionStateTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func theReadModelsStateIsTheFoldOfTheStream(seed: UInt64) async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2026-03-10T09:00:00Z") ?? Date()) { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "fold-\(seed)@example.com"))
            let tasks = harness.services.tasks
            let readModel = TasksReadModel(client: harness.client, logger: TestDatabase.logger)
            var random = CommandSequenceRandom(seed: seed)
            var ids: [UUID] = []
            var compared = 0
            let repeats: [TaskRepeat?] = [nil, TaskRepeat(every: .day), TaskRepeat(every: .week, interval: 2), TaskRepeat(every: .month)]

            func check(_ step: Int) async throws {
                for id in ids {
                    let loaded = try await readModel.decisionState(owner, id)
                    guard let (series, version, _) = loaded else { continue }  // deleted
                    let stream = StreamName(id: TaskEvent.streamId(series.seriesId), ownerId: owner, type: TaskEvent.streamType)
                    let folded = try await tasks.commands.folded(TaskDecider.self, stream)
                    compared += 1
                    #expect(folded.streamVersion == version, "seed \(seed), step \(step): versions")
                    #expect(folded.state == series, "seed \(seed), step \(step): the read model's series is not the fold of its stream")
                }
            }

            for step in 0..<40 {
                let context = CommandContext(userId: owner)
                let pick = ids.isEmpty ? 0 : random.next(5)
                do {
                    switch pick {
                    case 0:
                        let due = random.next(3) == 0 ? nil : LocalDate(year: 2026, month: 3, day: 10 + random.next(15))
                        let view = try await tasks.create(context, TaskDefinition(title: "Task \(step)", dueDate: due,
                                                                             repeat: due == nil ? nil : repeats[random.next(repeats.count)]))
                        ids.append(view.id)
                    case 1:
                        _ = try await tasks.complete(context, ids[random.next(ids.count)])
                    case 2:
                        _ = try await tasks.update(context, ids[random.next(ids.count)], TaskChange(title: "Renamed \(step)"))
                    case 3:
                        _ = try await tasks.update(context, ids[random.next(ids.count)],
                                                   TaskChange(dueDate: LocalDate(year: 2026, month: 4, day: 10 + random.next(15)).map { .set($0) } ?? .keep))
                    default:
                        try await tasks.delete(context, ids[random.next(ids.count)])
                    }
                } catch let error as any ProblemDescribing {
                    // A command the rules refuse (completing a deleted task) is part of a random sequence.
                    _ = error
                }
                try await check(step)
                if step == 20 {
                    // Rebuilt from the log halfway: the decisions after it load the same states.
                    try await harness.rebuild(TasksProjector())
                    try await check(step)
                }
            }
            #expect(ids.count >= 3 && compared >= 40, "the sequence made tasks and compared their states (\(ids.count), \(compared))")
        }
    }
}
