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

/// Stops a real PostgreSQL under a running application and starts it again: /readyz must say
/// 503 while it is down and 200 once it is back, with no restart of the application.
@Suite(.serialized) struct ReadinessRecoveryTests {
    let logger = TestDatabase.logger

    func readyStatus(_ http: some TestClientProtocol) async throws -> HTTPResponse.Status {
        try await http.execute(uri: "/readyz", method: .get) { $0.status }
    }

    @Test func readinessFollowsTheDatabaseDownAndBackUp() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-recovery-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try await checkReadiness(clusterDirectory: directory)
        } catch {
            _ = try? await ClusterControl.run("stop", directory.path)
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        _ = try? await ClusterControl.run("stop", directory.path)
        try? FileManager.default.removeItem(at: directory)
    }

    func checkReadiness(clusterDirectory directory: URL) async throws {
        let url = try DatabaseURL(parsing: try await ClusterControl.run("start", "test", directory.path))
        let migrator = try Migrator(directory: TestDatabase.schemaDirectory)
        // A fixed pool without keep-alive queries, as `serve` runs it: the connections PostgreSQL
        // dropped when it stopped are seen and opened again.
        try await PostgresClient.withRunning(url.clientConfiguration(maximumConnections: 4), logger: logger) { client in
            try await migrator.migrate(on: client, logger: logger)
            let clock = MutableClock(Date())
            let app = buildApplication(try await AppDependencies(
                client: client, keys: AppHarness.keys, clock: clock, migrator: migrator, logger: logger, readinessTimeout: .seconds(10),
                edge: EdgeLimits(databaseWait: .seconds(1))))
            try await app.test(.router) { http in
                #expect(try await readyStatus(http) == .ok)
                // With a 1 s database wait, a suite loading both cores can see the probe answer late
                // and a 503 before any outage: registration is tried again then (it stores once).
                var registered = try await http.register("outage@example.com")
                for _ in 0..<5 where registered.status == .serviceUnavailable {
                    try await Task.sleep(for: .milliseconds(500))
                    registered = try await http.register("outage@example.com")
                }
                // A 503 answered after the registration had committed: the account is there, so sign in.
                if registered.status == .conflict {
                    registered = try await http.call(
                        .post, "/api/v1/auth/login", json: #"{"email":"outage@example.com","password":"correct horse battery"}"#)
                }
                let token = try #require(registered.string("access_token"), "\(registered.text)")
                _ = try await ClusterControl.run("stop", directory.path)
                #expect(try await readyStatus(http) == .serviceUnavailable)
                // An API request waits about the limit (1 s here), not until the database is back.
                let start = ContinuousClock.now
                let me = try await http.call(.get, "/api/v1/me", token: token)
                let waited = ContinuousClock.now - start
                #expect(me.status == .serviceUnavailable, "\(me.text)")
                #expect(me.headers[.retryAfter] != nil)
                #expect(me.headers[.contentType] == "application/problem+json")
                #expect(waited < .seconds(4), "waited \(waited)")
                // A probe never depends on the database through authentication.
                #expect(try await http.call(.get, "/healthz", token: token).status == .ok)
                _ = try await ClusterControl.run("start", "test", directory.path)
                let deadline = ContinuousClock.now + .seconds(20)
                var status = HTTPResponse.Status.serviceUnavailable
                while ContinuousClock.now < deadline {
                    status = try await readyStatus(http)
                    if status == .ok { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(status == .ok)
                // And the API is back, without a restart.
                var back = try await http.call(.get, "/api/v1/me", token: token)
                for _ in 0..<50 where back.status != .ok {
                    try await Task.sleep(for: .milliseconds(200))
                    back = try await http.call(.get, "/api/v1/me", token: token)
                }
                #expect(back.status == .ok)
            }
        }
    }
}
