import API
import Domain
import EventStore
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Projections
import Testing
import TestSupport

/// Issue 24: one event a projector cannot apply must not stop that projector for every user.
/// The event here is the one an outside probe stored through the API before dates were bounded
/// (`PUT /health/manual/steps/0001-01-01`): the audit's date arithmetic left PostgreSQL's range
/// and the global projector failed every 5 s from then on.
@Suite struct DeadLetterTests {
    static let now = Date(timeIntervalSince1970: 1_773_144_000)  // 2026-03-10T12:00:00Z

    @Test func dateOutsideWhatLifelogComputesWithIsRefusedAtTheEdge() async throws {
        try await AppHarness.with(now: Self.now) { _, http in
            let token = try #require(try await http.register("edge@example.com").string("access_token"))
            for (method, path, body) in [
                (HTTPRequest.Method.put, "/api/v1/health/manual/steps/0001-01-01", #"{"value": 100}"#),
                (.put, "/api/v1/health/checkins/1899-12-31", #"{"feeling": 3}"#),
                (.get, "/api/v1/health/recovery?date=0001-01-01", nil),
                (.get, "/api/v1/health/daily?from=0001-01-01&to=0001-01-05&metrics=steps", nil),
                (.get, "/api/v1/today?date=2200-01-01", nil),
                (.post, "/api/v1/tasks", #"{"title": "Far", "due_date": "0001-01-01"}"#),
            ] {
                let answer = try await http.call(method, path, token: token, json: body)
                #expect(answer.status.code == 422, "\(method) \(path): \(answer.text)")
                #expect(!answer.fieldErrors.isDisjoint(with: ["date", "from", "to", "due_date"]), "\(path): \(answer.text)")
            }
            #expect(try await http.call(.put, "/api/v1/health/manual/steps/2026-03-09", token: token, json: #"{"value": 100}"#).status == .ok)
        }
    }

    /// `projections dead-letters` lists in log order: transaction 9 before 10 and 100 (a text
    /// sort gave 10, 100, 9).
    @Test func setAsideEventsAreListedInNumericLogOrder() async throws {
        try await AppHarness.with(now: Self.now) { harness, _ in
            for (tx, global) in [(10, 2), (100, 3), (9, 1)] {
                try await harness.client.query("""
                    INSERT INTO projection_dead_letters (projector, global_position, transaction_id, event_id, owner_id, event_type, error)
                    VALUES ('order-check', \(Int64(global)), \(String(tx))::xid8, gen_random_uuid(), gen_random_uuid(), 'test', 'x')
                    """)
            }
            let listed = try await DeadLetters.list("order-check", client: harness.client, logger: TestDatabase.logger)
            #expect(listed.map(\.position.transactionId) == [9, 10, 100])
        }
    }

    @Test func anEventAProjectorCannotApplyIsSetAsideAndEveryoneElseMovesOn() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let client = harness.client
            let logger = TestDatabase.logger
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
            let runners = AreaCatalog.projectors.filter { $0.mode == .async }.map {
                AsyncProjectorRunner(projector: $0, client: client, keyring: AppHarness.keyring, batchSize: $0.batchSize, logger: logger)
            }
            // User A's log holds the poison, as a log written before the edge checked dates does.
            let registered = try await http.register("poisoned@example.com")
            let idText = (registered.object["user"] as? [String: Any])?["id"] as? String
            let aId = try #require(UUID(uuidString: idText ?? ""))
            // With data of its own, the audit looks for gaps around every date it is told of.
            let sample = HealthIngestionTests.sample("steps", 1_000, "2026-03-08T08:00:00Z", "2026-03-08T09:00:00Z", source: "Watch", kind: "watch")
            let ingested = try await http.call(.post, "/api/v1/ingest/health", token: registered.string("access_token"),
                                               json: HealthIngestionTests.batch(samples: [sample]))
            #expect(ingested.status == .ok, "\(ingested.text)")
            try await store.append(
                to: StreamName(id: HealthEvent.settingsStreamId(aId), ownerId: aId, type: "health-settings"), expected: .any,
                events: [NewEvent(type: HealthEvent.ManualValueSet.type, data: #"{"metric":"steps","date":"0001-01-01","value":100}"#)])
            // User B writes after it, through the API.
            let bToken = try #require(try await http.register("bystander@example.com").string("access_token"))
            let set = try await http.call(.put, "/api/v1/health/manual/steps/2026-03-09", token: bToken, json: #"{"value": 9000}"#)
            #expect(set.status == .ok, "\(set.text)")

            for runner in runners { try await CatchUp.fully(runner) }

            // B's read models moved on past A's event.
            let days = try await http.call(.get, "/api/v1/health/daily?from=2026-03-09&to=2026-03-09&metrics=steps", token: bToken)
            let steps = (days.object["days"] as? [[String: Any]])?.first
            #expect(steps?["value"] as? Double == 9_000, "\(days.text)")
            let statuses = try await ProjectorStatus.load(AreaCatalog.projectors, client: client, logger: logger)
            for status in statuses where status.mode == .async { #expect(status.lagEvents == 0, "\(status.name) is behind") }
            // A's event is set aside, with its error, and counted.
            let setAside = statuses.filter { $0.deadLetters > 0 }
            #expect(!setAside.isEmpty)
            for status in setAside {
                let entries = try await DeadLetters.list(status.name, client: client, logger: logger)
                #expect(entries.count == 1)
                #expect(entries.first?.eventType == HealthEvent.ManualValueSet.type)
                #expect(entries.first?.error.isEmpty == false)
            }
            let metrics = try await http.call(.get, "/metrics")
            #expect(metrics.text.contains(#"lifelog_projector_dead_letters{projector="\#(setAside[0].name)"} 1"#), "\(metrics.text)")

            // Retrying meets the same fault: it stays set aside, counted once more.
            let projector = try #require(ProjectionCatalog.named(setAside[0].name, in: AreaCatalog.projectors))
            let retried = try await DeadLetters.retry(projector, client: client, keyring: AppHarness.keyring, logger: logger)
            #expect(retried.applied == 0 && retried.failing == 1)
            #expect(try await DeadLetters.list(projector.name, client: client, logger: logger).first?.attempts == 2)
            // A rebuild (run as the schema's owner, as `lifelog projections rebuild` is) replays
            // the whole log past it, and keeps it on the list.
            let report = try await PostgresClient.withRunning(harness.database.ownerConfiguration(), logger: logger) { owner in
                try await ProjectionRebuilder(client: owner, keyring: AppHarness.keyring, logger: logger).rebuild(projector)
            }
            #expect(report.eventsApplied > 0)
            #expect(try await DeadLetters.list(projector.name, client: client, logger: logger).count == 1)
            #expect(try await http.call(.get, "/api/v1/health/daily?from=2026-03-09&to=2026-03-09&metrics=steps", token: bToken)
                .text.contains("9000"))
        }
    }
}
