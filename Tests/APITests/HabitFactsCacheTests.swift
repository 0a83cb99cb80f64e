import API
@testable import Core
import Domain
import EventStore
import Foundation
@testable import Projections
import Synchronization
import Testing
import TestSupport

/// The habits' cache under a history that grows (issue 10): cold reads that pile up, and a
/// bound that follows the logs it holds, not the number of habits.
@Suite struct HabitFactsCacheTests {
    @Test func tenColdReadsAtOnceReadEachHabitsLogsOnce() async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2024-06-01T10:00:00Z") ?? Date()) { harness, http in
            let token = try #require(try await http.register("history@example.com").string("access_token"))
            let owner = try #require(UUID(uuidString: try await http.call(.get, "/api/v1/me", token: token).string("id") ?? ""))
            var habitIds: [UUID] = []
            for n in 0..<6 {
                let created = try await http.call(.post, "/api/v1/habits", token: token,
                                                  json: #"{"name":"Habit \#(n)","kind":"boolean","schedule":{"type":"daily"},"start_date":"2021-06-01"}"#)
                habitIds.append(try #require(UUID(uuidString: created.string("id") ?? "")))
            }
            // 400 days of logs, written past the service (as another instance would), 50 to a
            // transaction: a long transaction would hold back every other test's async readers
            // (the log's frontier is the cluster's oldest running transaction).
            let store = PostgresEventStore(client: harness.client, keyring: AppHarness.keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: TestDatabase.logger)
            let start = try #require(LocalDate("2021-06-01"))
            for habitId in habitIds {
                for chunk in stride(from: 0, to: 400, by: 50) {
                    let events = try (chunk..<chunk + 50).map { day in
                        NewEvent(type: HabitEvent.Logged.type,
                                 data: try EventCoding.encode(HabitEvent.Logged(habitId: habitId, date: start.adding(days: day), value: 1)),
                                 metadata: EventMetadata(actor: "test"))
                    }
                    try await store.append(to: StreamName(id: HabitEvent.streamId(habitId), ownerId: owner, type: HabitEvent.streamType),
                                           expected: .any, events: events)
                }
            }

            let cache = HabitFactsCache()
            let service = HabitService(ServiceBasis(store: store, clock: harness.clock, logger: TestDatabase.logger), cache: cache)
            let answers = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<10 { group.addTask { try await service.list(owner, on: nil).map(\.state.bestStreak) } }
                return try await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
            // Every request got the same, full answer; the logs of each habit were read once.
            #expect(answers.count == 10 && Set(answers).count == 1)
            #expect(answers.first == Array(repeating: 400, count: 6))
            #expect(await cache.habitsRead == 6)
        }
    }

    @Test func theCacheIsBoundedByTheLogsItHoldsNotByHabits() async throws {
        let cache = HabitFactsCache(capacity: 100)
        func entry(version: Int64, days: Int) -> HabitFactsCache.Entry {
            let start = LocalDate(year: 2024, month: 1, day: 1) ?? LocalDate(daysSinceEpoch: 0)
            let values = Dictionary(uniqueKeysWithValues: (0..<days).map { (start.adding(days: $0), Decimal(1)) })
            return .init(version: version, entries: .init(values: values, freezes: [:]))
        }
        let (a, b, c) = (UUID(), UUID(), UUID())
        await cache.store([a: entry(version: 1, days: 60)])
        await cache.store([b: entry(version: 1, days: 30)])
        #expect(await cache.current([(a, 1), (b, 1)]).count == 2)
        // Carried forward by ten more logs: 100 held, still within the bound.
        await cache.advance(b, from: 1, to: 2) { entries in
            for day in 0..<10 { entries.values[LocalDate(daysSinceEpoch: 30_000 + day)] = 1 }
        }
        #expect(await cache.current([(a, 1), (b, 2)]).count == 2)
        // One more habit's logs would pass it: what was held goes, the newcomer stays.
        await cache.store([c: entry(version: 1, days: 5)])
        #expect(await cache.current([(a, 1), (b, 2), (c, 1)]).keys.sorted { $0.uuidString < $1.uuidString } == [c])
    }
}
