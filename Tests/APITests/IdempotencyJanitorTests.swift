import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Projections
import Testing
import TestSupport

/// Expired idempotent answers go in the janitor's rounds, not inside somebody's POST: a sealed
/// answer loses its secrets after a day, and every answer goes after two.
@Suite struct IdempotencyJanitorTests {
    @Test func sealedCopiesGoAfterADayAndAnswersAfterTwo() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("ana@example.com").string("access_token"))
            let key: HTTPFields = [.init("Idempotency-Key")!: "watch-1"]
            let first = try await http.call(.post, "/api/v1/devices", token: token, headers: key, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(first.status == .created)
            let store = IdempotencyKeyStore(client: harness.client, logger: TestDatabase.logger)
            let sealed: PostgresQuery = "SELECT count(*) FROM idempotency_keys WHERE sealed_body IS NOT NULL"

            // Another request meanwhile does not clean up: the answer stays, sealed, until a round.
            try await harness.client.query("UPDATE idempotency_keys SET created_at = created_at - interval '25 hours'").collect()
            _ = try await http.call(.post, "/api/v1/tasks", token: token, headers: [.init("Idempotency-Key")!: "task-1"], json: #"{"title":"Call"}"#)
            #expect(try await harness.count(sealed) == 1)

            #expect(try await store.expire(now: harness.clock.now()) == 0)
            #expect(try await harness.count(sealed) == 0, "the secrets go after a day")
            let late = try await http.call(.post, "/api/v1/devices", token: token, headers: key, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(late.string("id") == first.string("id") && late.string("api_key") == nil, "a replay without the key: \(late.text)")

            try await harness.client.query("UPDATE idempotency_keys SET created_at = created_at - interval '49 hours'").collect()
            #expect(try await store.expire(now: harness.clock.now()) == 2, "both answers go after two days")
            #expect(try await harness.count("SELECT count(*) FROM idempotency_keys") == 0)
        }
    }
}
