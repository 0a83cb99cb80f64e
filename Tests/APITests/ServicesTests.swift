@testable import API
@testable import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// One composition root (`Services`): the routes, the apps' adapters, Today and the reminder job
/// hold the same service instances, so commands for one stream queue on one `StreamQueue`
/// whichever way they came, and a cache sees every route's changes.
@Suite struct ServicesTests {
    @Test func routesTodayTheAppsAndTheJobShareOneQueueAndOneCachePerService() async throws {
        try await TestDatabase.withAppClient { _, client in
            let dependencies = try await AppDependencies.forTests(client: client)
            let services = dependencies.services
            let habitsArea = try #require(dependencies.areas.lazy.compactMap { $0 as? HabitsArea }.first)
            let savingsArea = try #require(dependencies.areas.lazy.compactMap { $0 as? SavingsArea }.first)
            let healthArea = try #require(dependencies.areas.lazy.compactMap { $0 as? HealthArea }.first)
            let todayArea = try #require(dependencies.areas.lazy.compactMap { $0 as? TodayArea }.first)
            let healthSync = try #require(dependencies.clients.lazy.compactMap { $0 as? HealthSyncClient }.first)

            // A habit logged through its route and checked off from Today's data queue on one queue.
            #expect(habitsArea.habits.commands.queue === services.habits.commands.queue)
            #expect(todayArea.today.habits.commands.queue === services.habits.commands.queue)
            #expect(services.planning.habits.commands.queue === services.habits.commands.queue)
            #expect(habitsArea.habits.cache === todayArea.today.habits.cache)
            // Savings: one queue and one cache for its routes, Today and the reminder planning.
            #expect(savingsArea.savings.commands.queue === todayArea.today.savings.commands.queue)
            #expect(savingsArea.savings.cache === todayArea.today.savings.cache)
            #expect(savingsArea.savings.cache === services.planning.savings.cache)
            // Health: the native routes and the apps' uploads queue on one queue per user.
            #expect(healthArea.health.commands.queue === healthSync.health.commands.queue)
        }
    }

    /// A deposit through the savings route is in Today's answer at once, read through the one
    /// cache that the deposit itself carried forward.
    @Test func todayShowsADepositMadeThroughTheSavingsRouteAtItsNewVersion() async throws {
        try await AppHarness.with(now: Date(timeIntervalSince1970: 1_773_133_200)) { _, http in
            let token = try #require(try await http.register("ana@example.com").string("access_token"))
            let goal = try await http.call(.post, "/api/v1/savings/goals", token: token, json: #"{"name":"Trip","currency":"EUR","target_amount":"1000.00"}"#)
            let id = try #require(goal.string("id"))
            let plan = try await http.call(.put, "/api/v1/savings/goals/\(id)/plan", token: token,
                                           json: #"{"amount":"100.00","anchor_day":12,"start_month":"2026-03"}"#)
            #expect(plan.status == .ok, "\(plan.text)")
            let before = try await http.call(.get, "/api/v1/today", token: token)
            let dueBefore = ((before.object["savings"] as? [String: Any])?["due_soon"] as? [[String: Any]]) ?? []
            #expect(dueBefore.count == 1 && dueBefore.first?["paid"] as? String == "0.00", "\(before.text)")

            let deposit = try await http.call(.post, "/api/v1/savings/goals/\(id)/transactions", token: token,
                                              json: #"{"kind":"deposit","amount":"100.00","date":"2026-03-10","occurrence":"2026-03-12"}"#)
            #expect(deposit.status == .created, "\(deposit.text)")
            let after = try await http.call(.get, "/api/v1/today", token: token)
            let dueAfter = ((after.object["savings"] as? [String: Any])?["due_soon"] as? [[String: Any]]) ?? []
            #expect(dueAfter.isEmpty, "the paid occurrence is no longer due: \(after.text)")
        }
    }
}
