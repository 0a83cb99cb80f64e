import API
import Core
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing
import TestSupport

@Suite struct OperationsRoutesTests {
    let logger = TestDatabase.logger

    /// A generous readiness timeout: the suite runs many tests at once on two cores, and a slow
    /// answer is not what these tests are about (the unreachable case passes a short one).
    func app(_ client: PostgresClient, maxBodyBytes: Int = 1_048_576, readinessTimeout: Duration = .seconds(20)) async throws -> some ApplicationProtocol {
        buildApplication(try await AppDependencies.forTests(
            client: client, maxBodyBytes: maxBodyBytes, readinessTimeout: readinessTimeout, logger: logger))
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any] ?? [:]
    }

    @Test func healthAndReadinessWhenMigrated() async throws {
        try await TestDatabase.withAppClient { _, client in
            try await app(client).test(.router) { http in
                try await http.execute(uri: "/healthz", method: .get) { response in
                    #expect(response.status == .ok)
                    let body = try Self.json(response.body)
                    #expect(body["status"] as? String == "ok")
                }
                try await http.execute(uri: "/readyz", method: .get) { response in
                    #expect(response.status == .ok)
                    let body = try Self.json(response.body)
                    #expect(body["database"] as? String == "up")
                    #expect(body["migrations"] as? String == "current")
                }
            }
        }
    }

    @Test func notReadyWhileMigrationsArePending() async throws {
        try await TestDatabase.withAppClient(migrated: false) { _, client in
            try await app(client).test(.router) { http in
                try await http.execute(uri: "/readyz", method: .get) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.contentType] == "application/problem+json")
                    let detail = try Self.json(response.body)["detail"] as? String ?? ""
                    #expect(detail.contains("migration"))
                }
            }
        }
    }

    @Test func notReadyWhenTheDatabaseCannotBeReached() async throws {
        let unreachable = DatabaseURL(host: "127.0.0.1", port: 1, username: "lifelog", database: "lifelog")
        try await PostgresClient.withRunning(unreachable.clientConfiguration(), logger: logger) { client in
            try await app(client, readinessTimeout: .seconds(2)).test(.router) { http in
                try await http.execute(uri: "/readyz", method: .get) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == "5")
                    let body = try Self.json(response.body)
                    #expect(body["title"] as? String == "Database unavailable")
                }
                try await http.execute(uri: "/healthz", method: .get) { response in
                    #expect(response.status == .ok)
                }
                // A probe that sends a (valid) token is not authenticated: checking it would need
                // the database, and liveness must not depend on it.
                let token = try await AccessTokens(keys: AppHarness.keys, clock: MutableClock(Date())).issue(userId: UUID(), sessionId: UUID())
                try await http.execute(uri: "/healthz", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                    #expect(response.status == .ok)
                }
                try await http.execute(uri: "/readyz", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                    let body = try Self.json(response.body)
                    #expect(response.status == .serviceUnavailable)
                    #expect(body["title"] as? String == "Database unavailable")
                }
            }
        }
    }

    @Test func unknownRoutesAndMethodsAreProblems() async throws {
        try await TestDatabase.withAppClient { _, client in
            try await app(client).test(.router) { http in
                try await http.execute(uri: "/nowhere", method: .get) { response in
                    #expect(response.status == .notFound)
                    #expect(response.headers[.contentType] == "application/problem+json")
                    let body = try Self.json(response.body)
                    #expect(body["status"] as? Int == 404)
                }
                try await http.execute(uri: "/healthz", method: .delete) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow] == "GET")
                }
                // A literal segment is not a parameter: DELETE /devices/{id} does not apply here.
                try await http.execute(uri: "/api/v1/devices/pairing-codes", method: .delete) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow] == "POST")
                }
            }
        }
    }

    @Test func bodiesOverTheLimitAre413() async throws {
        try await TestDatabase.withAppClient { _, client in
            try await app(client, maxBodyBytes: 2_048).test(.router) { http in
                let big = ByteBuffer(repeating: UInt8(ascii: "a"), count: 4_096)
                try await http.execute(uri: "/healthz", method: .post, headers: [.contentType: "application/json"], body: big) { response in
                    #expect(response.status == .contentTooLarge)
                    #expect(response.headers[.contentType] == "application/problem+json")
                }
            }
        }
    }

    @Test func metricsSpeakPrometheusText() async throws {
        try await TestDatabase.withAppClient { _, client in
            try await app(client).test(.router) { http in
                try await http.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                    let text = String(buffer: response.body)
                    #expect(text.contains(#"lifelog_projector_lag_events{projector="owner_activity"} 0"#))
                    #expect(text.contains("lifelog_database_up 1"))
                }
            }
        }
    }
}
