import API
import Core
import EventStore
import Foundation
import HummingbirdTesting
import Metrics
import Prometheus
import Testing
import TestSupport

/// `/metrics` counts each answer under the status it was answered with (issue 9): before,
/// a 401 or a 429 thrown by authentication passed the metrics middleware as an error and was
/// counted as a 500, so 5xx alerts fired for wrong passwords.
@Suite struct MetricsStatusTests {
    /// The process's one metrics backend: `MetricsSystem` can be bootstrapped once, so only this
    /// suite does it (other suites' requests then count here too, harmlessly).
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    @Test func a401A404A422AndA429EachLandUnderTheirOwnCode() async throws {
        try await TestDatabase.withAppClient { _, client in
            let dependencies = try await AppDependencies(
                client: client, keys: AppHarness.keys, clock: MutableClock(Date()), migrator: try Migrator(directory: TestDatabase.schemaDirectory),
                logger: TestDatabase.logger, metrics: Self.registry)
            try await buildApplication(dependencies).test(.router) { http in
                #expect(try await http.call(.get, "/api/v1/me").status == .unauthorized)
                let token = try #require(try await http.register("metrics@example.com").string("access_token"))
                #expect(try await http.call(.get, "/api/v1/habits/\(UUID().uuidString)", token: token).status == .notFound)
                #expect(try await http.call(.post, "/api/v1/habits", token: token, json: #"{"name":""}"#).status == .unprocessableContent)
                for _ in 0..<5 {
                    _ = try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"metrics@example.com","password":"wrong password!"}"#)
                }
                let throttled = try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"metrics@example.com","password":"wrong password!"}"#)
                #expect(throttled.status == .tooManyRequests)
                let text = try await http.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
                let requests = text.split(separator: "\n").filter { $0.hasPrefix("hb_requests{") }
                func counted(_ path: String, _ method: String, _ status: Int) -> Bool {
                    requests.contains { $0.contains(path) && $0.contains("\"\(method)\"") && $0.contains("\"\(status)\"") }
                }
                #expect(counted("/api/v1/me", "GET", 401), "\(requests.joined(separator: "\n"))")
                #expect(counted("/api/v1/habits/", "GET", 404))
                #expect(counted("/api/v1/habits", "POST", 422))
                #expect(counted("/api/v1/auth/login", "POST", 401))
                #expect(counted("/api/v1/auth/login", "POST", 429))
                // (No check for the absence of 500s: every suite in this process counts into the
                // one registry, and some answer 500 on purpose. With the old order, each line
                // above was missing: those answers were counted as 500.)
            }
        }
    }
}
