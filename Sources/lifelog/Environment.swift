import Core
import EventStore
import Foundation
import Logging
import PostgresNIO

enum Environment {
    static func logger(_ label: String, level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }

    /// One-shot commands log only warnings; `serve` passes `.info` so its start-up notes show.
    /// Only commands that issue or check tokens ask for the signing keys.
    static func configuration(logLevel: Logger.Level = .warning, signingKeys: Bool = false) throws -> ServerConfiguration {
        do {
            return try ServerConfiguration.fromEnvironment(logger: logger("lifelog", level: logLevel), signingKeys: signingKeys)
        } catch let error as ServerConfiguration.Invalid {
            throw CLIError(error.description)
        }
    }

    static func migrator(_ configuration: ServerConfiguration) throws -> Migrator {
        do {
            return try Migrator(directory: configuration.schemaDirectory)
        } catch let error as MigrationError {
            throw CLIError(error.description)
        }
    }

    /// Runs a one-shot job with a client for the schema owner (migrations, rebuilds), turning
    /// an unreachable database into one clear line.
    static func withOwnerClient<T: Sendable>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let url = configuration.databaseURL
        do {
            return try await PostgresClient.withRunning(url.clientConfiguration(maximumConnections: 4), logger: logger) { client in
                try await reachable(client, url: url, logger: logger)
                return try await body(client)
            }
        } catch let error as MigrationError {
            throw CLIError(error.description)
        }
    }

    /// Fails fast with a readable reason when the database does not answer. A single direct
    /// connection reports refusals and login errors at once, where the pool would keep retrying.
    static func reachable(_ client: PostgresClient, url: DatabaseURL, logger: Logger) async throws {
        do {
            let configuration = try url.connectionConfiguration()
            let reached = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                    try await connection.close()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
            if !reached { throw CLIError("cannot reach the database at \(url): no answer within 10 s") }
        } catch let error as CLIError {
            throw error
        } catch {
            let reason = PostgresErrors.message(error) ?? describe(error)
            throw CLIError("cannot reach the database at \(url): \(reason)")
        }
    }

    /// A database error in words: PostgresNIO's own description is deliberately generic.
    static func databaseProblem(_ error: any Error) -> String? {
        guard let psql = PostgresErrors.unwrap(error) as? PSQLError else { return nil }
        guard let message = PostgresErrors.message(psql) else { return "database connection failed: \(describe(psql))" }
        let state = PostgresErrors.sqlState(psql) ?? "?"
        // An undefined table or function: the schema is not there yet.
        let hint = ["42P01", "42883"].contains(state) ? "; run `lifelog migrate` first" : ""
        return "database error \(state): \(message)\(hint)"
    }

    static func describe(_ error: any Error) -> String {
        if let psql = PostgresErrors.unwrap(error) as? PSQLError {
            if let underlying = psql.underlying { return String(describing: underlying) }
            return String(describing: psql.code)
        }
        return String(describing: error)
    }
}
