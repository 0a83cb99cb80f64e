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

    /// The owners' data keys, wrapped by the server's key: every command that reads or writes
    /// events needs the key the server runs with (`configuration(signingKeys: true)`).
    static func keyring(_ configuration: ServerConfiguration) throws -> OwnerKeyring {
        do {
            return try OwnerKeyring(signingKeys: configuration.signingKeys)
        } catch {
            throw CLIError("no server key to open the log with: set JWT_SECRET or JWT_KEYS as the server has them")
        }
    }

    /// Seals the events stored before payloads were sealed (schema/0025), once, as the owner;
    /// only then is the server's key needed (a new install has none to seal).
    static func sealPlainEvents(_ configuration: ServerConfiguration, logger: Logger) async throws {
        let remain = try await withOwnerClient(configuration, logger: logger) { client in
            try await PlainPayloads.remain(client: client, logger: logger)
        }
        guard remain else { return }
        let keyring = try keyring(configuration.signingKeys.isEmpty ? self.configuration(signingKeys: true) : configuration)
        try await withOwnerClient(configuration, logger: logger) { client in
            let sealed = try await PlainPayloads.sealAll(client: client, keyring: keyring, logger: logger)
            logger.notice("sealed the events stored before payloads were sealed", metadata: ["events": "\(sealed)"])
        }
    }

    /// Keys wrapped by a server key being rotated out move to the first one (`serve`, at start).
    static func rewrapOwnerKeys(_ keyring: OwnerKeyring, _ configuration: ServerConfiguration, logger: Logger) async throws {
        try await withOwnerClient(configuration, logger: logger) { client in
            let rewrapped: Int
            do {
                rewrapped = try await keyring.rewrapAll(client: client, logger: logger)
            } catch let unavailable as OwnerKeyring.KeyUnavailable {
                throw CLIError(unavailable.description)
            }
            if rewrapped > 0 { logger.notice("rewrapped owners' keys under the first server key", metadata: ["keys": "\(rewrapped)"]) }
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
