import EventStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// `/healthz` (the process answers), `/readyz` (database reachable, migrations applied).
struct HealthRoutes {
    let client: PostgresClient
    let migrator: Migrator
    let readinessTimeout: Duration

    struct Status: ResponseEncodable {
        var status: String
        var database: String?
        var migrations: String?
    }

    func register(on router: Router<AppRequestContext>) {
        router.get("/healthz") { _, _ in Status(status: "ok") }
        router.get("/readyz") { _, context in try await ready(logger: context.logger) }
    }

    func ready(logger: Logger) async throws -> Status {
        let pending: [Migration]
        do {
            pending = try await withTimeout(readinessTimeout) {
                try await PostgresEventStore.ping(client, logger: logger)
                return try await migrator.pending(on: client, logger: logger)
            }
        } catch let error as MigrationError {
            throw Problem(type: Problem.base + "not-ready", title: "Not ready", status: 503, detail: error.description, retryAfter: 5)
        } catch {
            logger.warning("readiness check failed", metadata: ["error": "\(String(reflecting: error))"])
            throw Problem.databaseUnavailable()
        }
        guard pending.isEmpty else {
            throw Problem(type: Problem.base + "not-ready", title: "Not ready", status: 503,
                          detail: "\(pending.count) migration(s) not applied yet; run `lifelog migrate`.", retryAfter: 5)
        }
        return Status(status: "ready", database: "up", migrations: "current")
    }
}

struct TimedOut: Error {}

/// Runs `work`, giving up after `limit`: a database that does not answer is as good as down.
func withTimeout<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut() }
        return value
    }
}
