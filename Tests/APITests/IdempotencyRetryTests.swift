import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing
import TestSupport

/// Each area says whether its commands rerun safely (`Area.commandsRerunSafely`); the
/// idempotency middleware holds no list of paths.
@Suite struct IdempotencyRetryTests {
    /// Accounts make a key beside the log: a retry while the first attempt has not answered
    /// waits, then is told to come back (409), and no second device is made.
    @Test func anAccountsRetryWaitsForItsFirstAttemptInsteadOfRunningAgain() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("device@example.com").string("access_token"))
            let headers: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "create-device-1"]
            let first = try await http.call(.post, "/api/v1/devices", token: token, headers: headers, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(first.status == .created)
            // As if the first attempt were still running: its claim is there, its answer not yet.
            try await harness.client.query("UPDATE idempotency_keys SET status = NULL", logger: TestDatabase.logger).collect()
            let retry = try await http.call(.post, "/api/v1/devices", token: token, headers: headers, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(retry.status == .conflict, "\(retry.text)")
            #expect(try await harness.count("SELECT count(*) FROM events WHERE event_type = 'device.registered'") == 1)
        }
    }

    /// Tasks are commands whose ids the key derives: the same retry runs again and finishes the
    /// first attempt, answering with the same task.
    @Test func aTasksRetryRunsAgainAndFindsTheFirstAttempt() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("task@example.com").string("access_token"))
            let headers: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "create-task-1"]
            let first = try await http.call(.post, "/api/v1/tasks", token: token, headers: headers, json: #"{"title":"Once"}"#)
            try await harness.client.query("UPDATE idempotency_keys SET status = NULL", logger: TestDatabase.logger).collect()
            let retry = try await http.call(.post, "/api/v1/tasks", token: token, headers: headers, json: #"{"title":"Once"}"#)
            #expect(retry.status == .created && retry.string("id") == first.string("id"), "\(retry.text)")
            #expect(try await harness.count("SELECT count(*) FROM events WHERE event_type = 'task.created'") == 1)
        }
    }
}
