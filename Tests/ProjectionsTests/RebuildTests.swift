import API
import EventStore
import Foundation
import PostgresNIO
import Projections
import Testing
import HummingbirdTesting
import TestSupport

@Suite struct RebuildTests {
    let logger = TestDatabase.logger
    struct SimulatedCrash: Error {}

    /// Runs `body` with an app-role client (the server) and an owner client (the CLI).
    func withClients(_ body: (PostgresClient, PostgresClient) async throws -> Void) async throws {
        try await TestDatabase.withAppClient { database, app in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { owner in
                try await body(app, owner)
            }
        }
    }

    @Test func aRebuiltInlineModelEqualsTheInlineOne() async throws {
        try await withClients { app, owner in
            try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(app), appends: 300, seed: 21)
            let inline = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)
            let indexes = try await ProjectionFixtures.indexNames("rm_stream_summary", client: app)
            #expect(inline.count > 50)

            let report = try await ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger, batchSize: 64).rebuild(StreamSummaryProjector())
            #expect(!report.resumed)
            let rebuilt = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)
            #expect(rebuilt.count == inline.count)
            #expect(rebuilt.difference(from: inline).map { "\($0)" }.prefix(4).joined(separator: "\n") == "")
            #expect(try await ProjectionFixtures.indexNames("rm_stream_summary", client: app) == indexes)
            // The server role can still write the swapped-in table.
            try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(app), appends: 5, seed: 22)
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: app) == ProjectionFixtures.streamSummaryOracle(client: app))
        }
    }

    /// A session that keeps a live read model open (a forgotten psql, a dump) must not stall
    /// every write: each cutover attempt gives up its lock wait, and after the last one the
    /// rebuild fails with a clear reason, the live tables untouched and writes flowing; once the
    /// session ends, the rebuild runs again and resumes.
    @Test func aCutoverBlockedByAnOpenSessionGivesUpAndResumesLater() async throws {
        try await withClients { app, owner in
            let store = ProjectionFixtures.store(app)
            try await ProjectionFixtures.writeHistory(store, appends: 60, seed: 41)
            let before = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)
            let holding = Flag(), release = Flag()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await owner.withConnection { connection in
                        try await connection.run("BEGIN", logger: logger)
                        try await connection.run("SELECT count(*) FROM rm_stream_summary", logger: logger)
                        holding.raise()
                        while !release.isRaised { try await Task.sleep(for: .milliseconds(10)) }
                        try await connection.run("COMMIT", logger: logger)
                    }
                }
                while !holding.isRaised { try await Task.sleep(for: .milliseconds(5)) }
                let blocked = ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger, batchSize: 25,
                                                  cutoverLockTimeout: .milliseconds(200), cutoverAttempts: 3)
                let rebuild = Task { try await blocked.rebuild(StreamSummaryProjector()) }
                // While the attempts wait and back off, writes still get through: each waits at
                // most one attempt's lock timeout, never for the open session.
                let clock = ContinuousClock()
                var slowest = Duration.zero
                for seed in 0..<8 {
                    let started = clock.now
                    try await ProjectionFixtures.writeHistory(store, appends: 1, seed: UInt64(42 + seed))
                    slowest = max(slowest, clock.now - started)
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(slowest < .seconds(5), "\(slowest)")  // one attempt waits 0.2 s (without the timeout: until release, never)
                await #expect(throws: RebuildError.cutoverBlocked(projector: "stream_summary", attempts: 3)) {
                    try await rebuild.value
                }
                #expect(try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app) != before)
                release.raise()
                try await group.waitForAll()
            }
            let report = try await ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger, batchSize: 25).rebuild(StreamSummaryProjector())
            #expect(report.resumed)
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: app) == ProjectionFixtures.streamSummaryOracle(client: app))
        }
    }

    /// An index a migration adds while a killed rebuild waits makes the next run start over
    /// (from fresh copies that have it) instead of resuming and swapping in tables without it.
    @Test func aChangedTableDefinitionRestartsAnInterruptedRebuild() async throws {
        try await withClients { app, owner in
            try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(app), appends: 80, seed: 51)
            let rebuilder = ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger, batchSize: 20)
            await #expect(throws: SimulatedCrash.self) {
                try await rebuilder.rebuild(StreamSummaryProjector()) { progress in
                    if progress.eventsApplied >= 40 { throw SimulatedCrash() }
                }
            }
            let before = try await ProjectionFixtures.indexNames("rm_stream_summary", client: app)
            try await owner.run("CREATE INDEX rm_stream_summary_added_idx ON rm_stream_summary (stream_type)", logger: logger)
            let report = try await rebuilder.rebuild(StreamSummaryProjector())
            #expect(!report.resumed)
            let indexes = try await ProjectionFixtures.indexNames("rm_stream_summary", client: app)
            #expect(indexes.count == before.count + 1, "\(indexes)")
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: app) == ProjectionFixtures.streamSummaryOracle(client: app))
        }
    }

    @Test func anInterruptedRebuildLeavesTheLiveModelAndTheNextRunFinishes() async throws {
        try await withClients { app, owner in
            let store = ProjectionFixtures.store(app)
            try await ProjectionFixtures.writeHistory(store, appends: 200, seed: 31)
            let before = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)
            let rebuilder = ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger, batchSize: 40)

            await #expect(throws: SimulatedCrash.self) {
                try await rebuilder.rebuild(StreamSummaryProjector()) { progress in
                    if progress.eventsApplied >= 120 { throw SimulatedCrash() }
                }
            }
            #expect(try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app) == before)
            // The live model keeps working while the shadow copy waits.
            try await ProjectionFixtures.writeHistory(store, appends: 30, seed: 32)
            let live = try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app)

            let report = try await rebuilder.rebuild(StreamSummaryProjector())
            #expect(report.resumed)
            #expect(try await ProjectionFixtures.dump("rm_stream_summary", orderBy: "stream_id", client: app) == live)
        }
    }

    @Test func writesDuringARebuildAreInTheResult() async throws {
        try await withClients { app, owner in
            let store = ProjectionFixtures.store(app)
            try await ProjectionFixtures.writeHistory(store, appends: 300, seed: 41)
            let writing = Flag()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var seed: UInt64 = 100
                    while !writing.isRaised {
                        try await ProjectionFixtures.writeHistory(store, appends: 3, seed: seed)
                        seed += 1
                    }
                }
                let rebuilder = ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger, batchSize: 25)
                _ = try await rebuilder.rebuild(StreamSummaryProjector())
                _ = try await rebuilder.rebuild(OwnerActivityProjector())
                writing.raise()
                try await group.waitForAll()
            }
            #expect(try await ProjectionFixtures.streamSummaryFacts(client: app) == ProjectionFixtures.streamSummaryOracle(client: app))
            // The async model resumes from the checkpoint the cutover wrote, without double counting.
            try await CatchUp.fully(AsyncProjectorRunner(projector: OwnerActivityProjector(), client: app, keyring: AppHarness.keyring, logger: logger))
            #expect(try await ProjectionFixtures.activityFacts(client: app) == ProjectionFixtures.activityOracle(client: app))
        }
    }

    @Test func twoRebuildsOfOneProjectorDoNotRunAtOnce() async throws {
        try await withClients { app, owner in
            try await ProjectionFixtures.writeHistory(ProjectionFixtures.store(app), appends: 100, seed: 51)
            let started = Flag()
            let release = Flag()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger, batchSize: 10).rebuild(StreamSummaryProjector()) { _ in
                        started.raise()
                        while !release.isRaised { Thread.sleep(forTimeInterval: 0.01) }
                    }
                }
                while !started.isRaised { try await Task.sleep(for: .milliseconds(5)) }
                await #expect(throws: RebuildError.alreadyRunning("stream_summary")) {
                    try await ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger).rebuild(StreamSummaryProjector())
                }
                release.raise()
                try await group.waitForAll()
            }
        }
    }
}

@Suite struct AccountsRebuildTests {
    @Test func theAccountsModelRebuildsToWhatTheInlineProjectorBuilt() async throws {
        try await AppHarness.with { harness, http in
            for n in 0..<6 {
                let token = try #require(try await http.register("rebuild\(n)@example.com").string("access_token"))
                _ = try await http.call(.patch, "/api/v1/me", token: token, json: #"{"day_start_hour":\#(n),"language":"ru"}"#)
                let device = try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"Phone \#(n)","kind":"phone"}"#)
                if n % 2 == 0, let id = device.string("id") {
                    _ = try await http.call(.delete, "/api/v1/devices/\(id)", token: token)
                }
            }
            let users = try await ProjectionFixtures.dump("rm_users", orderBy: "user_id", client: harness.client)
            let devices = try await ProjectionFixtures.dump("rm_devices", orderBy: "device_id", client: harness.client)
            try await PostgresClient.withRunning(harness.database.ownerConfiguration(), logger: TestDatabase.logger) { owner in
                _ = try await ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: TestDatabase.logger, batchSize: 7).rebuild(AccountsProjector())
            }
            #expect(try await ProjectionFixtures.dump("rm_users", orderBy: "user_id", client: harness.client) == users)
            #expect(try await ProjectionFixtures.dump("rm_devices", orderBy: "device_id", client: harness.client) == devices)
            // Still the live model: logins and profile reads work after the swap.
            let login = try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"rebuild1@example.com","password":"correct horse battery"}"#)
            #expect(login.status == .ok)
        }
    }
}

@Suite struct AreaRebuildTests {
    /// A scripted history of a few hundred changes through the API, then a rebuild of every
    /// inline projector the areas register, table by table from each projector's own list: the
    /// rebuilt tables equal what the inline projectors built. A new area's projector is in
    /// this test as soon as it is in `AreaCatalog`. (Async projectors are not running in the
    /// harness; their rebuild is covered by the rebuild tests above.)
    @Test func everyInlineModelRebuildsToWhatItsProjectorBuilt() async throws {
        try await AppHarness.with(now: ISO8601DateFormatter().date(from: "2026-06-30T10:00:00Z") ?? Date()) { harness, http in
            let token = try #require(try await http.register("history@example.com").string("access_token"))
            var random = SeededGenerator(seed: 99)
            var habitIds: [String] = []
            for n in 0..<6 {
                let schedule = [#"{"type":"daily"}"#, #"{"type":"weekdays","days":[1,3,5]}"#, #"{"type":"times_per_week","count":3}"#][n % 3]
                let kind = n == 5 ? #""kind":"numeric","target":8"# : #""kind":"boolean""#
                let created = try await http.call(.post, "/api/v1/habits", token: token,
                    json: #"{"name":"H\#(n)",\#(kind),"schedule":\#(schedule),"start_date":"2026-05-01"}"#)
                habitIds.append(try #require(created.string("id")))
            }
            var taskIds: [String] = []
            var changes = 0
            while changes < 300 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5:
                    let id = habitIds[Int.random(in: 0..<habitIds.count, using: &random)]
                    let day = LocalDateText.day(Int.random(in: 1...60, using: &random))
                    _ = try await http.call(.post, "/api/v1/habits/\(id)/logs", token: token, json: #"{"date":"\#(day)","value":3}"#)
                case 5:
                    let id = habitIds[Int.random(in: 0..<habitIds.count, using: &random)]
                    _ = try await http.call(.delete, "/api/v1/habits/\(id)/logs/\(LocalDateText.day(Int.random(in: 1...60, using: &random)))", token: token)
                case 6:
                    let id = habitIds[Int.random(in: 0..<habitIds.count, using: &random)]
                    let from = Int.random(in: 1...55, using: &random)
                    _ = try await http.call(.post, "/api/v1/habits/\(id)/freezes", token: token,
                                            json: #"{"from":"\#(LocalDateText.day(from))","to":"\#(LocalDateText.day(from + 2))"}"#)
                case 7:
                    let created = try await http.call(.post, "/api/v1/tasks", token: token,
                        json: #"{"title":"T\#(changes)","due_date":"\#(LocalDateText.day(Int.random(in: 1...60, using: &random)))","repeat":{"every":"week"}}"#)
                    if let id = created.string("id") { taskIds.append(id) }
                case 8 where !taskIds.isEmpty:
                    let id = taskIds[Int.random(in: 0..<taskIds.count, using: &random)]
                    if let next = try await http.call(.post, "/api/v1/tasks/\(id)/complete", token: token).string("next_task_id") {
                        taskIds.append(next)
                    }
                case 9 where !taskIds.isEmpty:
                    let id = taskIds[Int.random(in: 0..<taskIds.count, using: &random)]
                    let patch = [#"{"priority":\#(Int.random(in: 1...3, using: &random))}"#, #"{"notes":"n","due_time":"09:30"}"#,
                                 #"{"notes":null,"due_time":null}"#][Int.random(in: 0..<3, using: &random)]
                    _ = try await http.call(.patch, "/api/v1/tasks/\(id)", token: token, json: patch)
                default:
                    let patch = [#"{"schedule":{"type":"every_n_days","n":2},"effective_from":"2026-06-01"}"#,
                                 #"{"emoji":"💧","unit":"ml","reminder_time":"07:00"}"#,
                                 #"{"emoji":null,"reminder_time":null}"#][Int.random(in: 0..<3, using: &random)]
                    let id = habitIds[Int.random(in: 0..<habitIds.count, using: &random)]
                    _ = try await http.call(.patch, "/api/v1/habits/\(id)", token: token, json: patch)
                }
                changes += 1
            }
            try await SavingsHistory.write(http, owner: token)
            try await HealthHistory.write(http, owner: token)
            // Finance: categories, budget steps (set, changed, ended), transactions changed and deleted.
            var categoryIds: [String] = []
            for (n, kind) in ["expense", "expense", "income"].enumerated() {
                let created = try await http.call(.post, "/api/v1/finance/categories", token: token, json: #"{"name":"C\#(n)","kind":"\#(kind)"}"#)
                categoryIds.append(try #require(created.string("id")))
            }
            var transactionIds: [String] = []
            for n in 0..<120 {
                switch Int.random(in: 0..<8, using: &random) {
                case 0..<4:
                    let category = Int.random(in: 0..<2, using: &random)
                    let currency = n % 5 == 0 ? "USD" : "EUR"
                    let created = try await http.call(.post, "/api/v1/finance/transactions", token: token, json: """
                        {"kind":"expense","amount":"\(Int.random(in: 1...500, using: &random)).\(n % 10)5","currency":"\(currency)",\
                        "category_id":"\(categoryIds[category])","date":"\(LocalDateText.day(Int.random(in: 1...60, using: &random)))"}
                        """)
                    if let id = created.string("id") { transactionIds.append(id) }
                case 4:
                    _ = try await http.call(.post, "/api/v1/finance/transactions", token: token,
                                            json: #"{"kind":"income","amount":"1000","category_id":"\#(categoryIds[2])","date":"2026-05-0\#(n % 9 + 1)"}"#)
                case 5 where !transactionIds.isEmpty:
                    let id = transactionIds.remove(at: Int.random(in: 0..<transactionIds.count, using: &random))
                    _ = try await http.call(.delete, "/api/v1/finance/transactions/\(id)", token: token)
                case 6 where !transactionIds.isEmpty:
                    let id = transactionIds[Int.random(in: 0..<transactionIds.count, using: &random)]
                    let patch = [#"{"amount":"7.70","date":"2026-06-02"}"#, #"{"category_id":null,"note":"moved"}"#,
                                 #"{"category_id":"\#(categoryIds[1])"}"#][Int.random(in: 0..<3, using: &random)]
                    _ = try await http.call(.patch, "/api/v1/finance/transactions/\(id)", token: token, json: patch)
                default:
                    let month = ["2026-04", "2026-05", "2026-06"][Int.random(in: 0..<3, using: &random)]
                    if n % 3 == 0 {
                        _ = try await http.call(.delete, "/api/v1/finance/categories/\(categoryIds[0])/budget?from_month=\(month)", token: token)
                    } else {
                        _ = try await http.call(.put, "/api/v1/finance/categories/\(categoryIds[n % 2])/budget", token: token,
                                                json: #"{"amount":"\#(100 + n)","currency":"EUR","from_month":"\#(month)"}"#)
                    }
                }
            }
            _ = try await http.call(.delete, "/api/v1/finance/categories/\(categoryIds[1])", token: token)
            for n in 0..<4 {
                let other = try #require(try await http.register("rebuild\(n)@example.com").string("access_token"))
                _ = try await http.call(.patch, "/api/v1/me", token: other, json: #"{"day_start_hour":\#(n),"language":"ru"}"#)
                let device = try await http.call(.post, "/api/v1/devices", token: other, json: #"{"name":"Phone \#(n)","kind":"phone"}"#)
                if n % 2 == 0, let id = device.string("id") { _ = try await http.call(.delete, "/api/v1/devices/\(id)", token: other) }
            }
            let projectors = AreaCatalog.projectors.filter { $0.mode == .inline }
            let savingsBefore = try await http.call(.get, "/api/v1/savings/overview", token: token).text
            #expect(Set(projectors.map(\.name)).isSuperset(of: [
                "accounts", "habits", "tasks", "finance", "savings", "health-records", "health-settings", "stream_summary"]))
            var before: [String: [String]] = [:]
            for table in projectors.flatMap(\.tables) {
                before[table] = try await ProjectionFixtures.dump(table, orderBy: "t::text", client: harness.client)
                #expect(before[table]?.isEmpty == false, "\(table) holds nothing to compare")
            }
            #expect((before["rm_habit_logs"] ?? []).count > 50)
            #expect((before["rm_fin_month_totals"] ?? []).count > 5)
            let habitsBefore = try await http.call(.get, "/api/v1/habits", token: token).text
            try await PostgresClient.withRunning(harness.database.ownerConfiguration(), logger: TestDatabase.logger) { owner in
                let rebuilder = ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: TestDatabase.logger, batchSize: 37)
                for projector in projectors { _ = try await rebuilder.rebuild(projector) }
            }
            for table in projectors.flatMap(\.tables) {
                let after = try await ProjectionFixtures.dump(table, orderBy: "t::text", client: harness.client)
                #expect(after == before[table], "\(table)")
            }
            #expect(try await http.call(.get, "/api/v1/habits", token: token).text == habitsBefore)
            #expect(try await http.call(.get, "/api/v1/savings/overview", token: token).text == savingsBefore)
        }
    }
}

enum LocalDateText {
    /// Day `n` counted from 2026-05-01 (day 1), as YYYY-MM-DD.
    static func day(_ n: Int) -> String {
        let days = n - 1
        let (month, day) = days < 31 ? (5, days + 1) : (6, days - 30)
        return String(format: "2026-%02d-%02d", month, day)
    }
}

/// Savings changes for the scripted history: goals with plans changed and ended, deposits
/// (some naming an occurrence), withdrawals, deletions, a deleted goal, and a shared goal whose
/// members (invited, and accepting) deposit and delete, one leaving and one kept; and
/// invitations declined, withdrawn and left pending.
enum SavingsHistory {
    static func write(_ http: any TestClientProtocol, owner token: String) async throws {
        var random = SeededGenerator(seed: 7)
        let member = try #require(try await http.register("saver-member@example.com").string("access_token"))
        let leaving = try #require(try await http.register("saver-leaving@example.com").string("access_token"))
        var goals: [String] = []
        for n in 0..<4 {
            let created = try await http.call(.post, "/api/v1/savings/goals", token: token,
                json: #"{"name":"Goal \#(n)","currency":"\#(n == 3 ? "JPY" : "EUR")","target_amount":"5000","target_date":"2027-12-31"}"#)
            let id = try #require(created.string("id"))
            goals.append(id)
            _ = try await http.call(.put, "/api/v1/savings/goals/\(id)/plan", token: token,
                json: #"{"amount":"100","anchor_day":\#(n == 1 ? #""last""# : "31"),"every_months":\#(n + 1),"start_month":"2025-0\#(n + 1)"}"#)
        }
        let shared = goals[0]
        for (email, invitee) in [("saver-member@example.com", member), ("saver-leaving@example.com", leaving)] {
            let invitation = try #require(try await http.call(.post, "/api/v1/savings/goals/\(shared)/members", token: token,
                                                              json: #"{"email":"\#(email)"}"#).string("id"))
            _ = try await http.call(.post, "/api/v1/savings/invitations/\(invitation)/accept", token: invitee)
        }
        let declining = try #require(try await http.register("saver-declining@example.com").string("access_token"))
        _ = try await http.register("saver-pending@example.com")
        _ = try await http.register("saver-withdrawn@example.com")
        for email in ["saver-declining@example.com", "saver-pending@example.com", "saver-withdrawn@example.com"] {
            let invitation = try #require(try await http.call(.post, "/api/v1/savings/goals/\(goals[3])/members", token: token,
                                                              json: #"{"email":"\#(email)"}"#).string("id"))
            if email.contains("declining") { _ = try await http.call(.post, "/api/v1/savings/invitations/\(invitation)/decline", token: declining) }
            if email.contains("withdrawn") { _ = try await http.call(.delete, "/api/v1/savings/goals/\(goals[3])/invitations/\(invitation)", token: token) }
        }
        var movements: [(goal: String, id: String, token: String)] = []
        for change in 0..<120 {
            let goal = goals[Int.random(in: 0..<goals.count, using: &random)]
            let actor = goal == shared ? [token, member, leaving][Int.random(in: 0..<3, using: &random)] : token
            let m = Int.random(in: 0..<17, using: &random)  // 2025-01 to 2026-05
            let date = String(format: "%04d-%02d-%02d", 2025 + m / 12, m % 12 + 1, Int.random(in: 1...28, using: &random))
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                let naming = change % 5 == 0 ? #","occurrence":"2025-03-31""# : ""
                let answer = try await http.call(.post, "/api/v1/savings/goals/\(goal)/transactions", token: actor,
                    json: #"{"kind":"deposit","amount":"\#(Int.random(in: 20...250, using: &random))","date":"\#(date)"\#(naming)}"#)
                if let id = answer.string("id") { movements.append((goal, id, actor)) }
            case 6:
                let answer = try await http.call(.post, "/api/v1/savings/goals/\(goal)/transactions", token: actor,
                    json: #"{"kind":"withdrawal","amount":"\#(Int.random(in: 10...60, using: &random))","date":"\#(date)","note":"spent"}"#)
                if let id = answer.string("id") { movements.append((goal, id, actor)) }
            case 7 where !movements.isEmpty:
                let index = Int.random(in: 0..<movements.count, using: &random)
                let gone = movements[index]
                let answer = try await http.call(.delete, "/api/v1/savings/goals/\(gone.goal)/transactions/\(gone.id)", token: gone.token)
                if answer.status == .noContent { movements.remove(at: index) }
            case 8:
                let month = 1 + Int.random(in: 0..<12, using: &random)
                _ = try await http.call(.put, "/api/v1/savings/goals/\(goal)/plan", token: token,
                    json: #"{"amount":"\#(Int.random(in: 50...150, using: &random))","anchor_day":\#(Int.random(in: 1...31, using: &random)),"start_month":"2025-\#(month < 10 ? "0" : "")\#(month)"}"#)
            default:
                _ = try await http.call(.patch, "/api/v1/savings/goals/\(goal)", token: token,
                    json: [#"{"emoji":"💰"}"#, #"{"emoji":null,"target_date":null}"#, #"{"target_amount":"9000","target_date":"2026-12-31"}"#][change % 3])
            }
        }
        _ = try await http.call(.delete, "/api/v1/savings/goals/\(goals[2])/plan", token: token)
        _ = try await http.call(.delete, "/api/v1/savings/goals/\(goals[1])", token: token)
        let leavingId = try #require(try await http.call(.get, "/api/v1/me", token: leaving).string("id"))
        _ = try await http.call(.delete, "/api/v1/savings/goals/\(shared)/members/\(leavingId)", token: leaving)
    }
}
