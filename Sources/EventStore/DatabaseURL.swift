import Foundation
import NIOSSL
import PostgresNIO

/// A parsed `DATABASE_URL` (`postgres://user:password@host:port/database?sslmode=…`).
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public enum SSLMode: String, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode

    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String, sslMode: SSLMode = .disable) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
    }

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { "DATABASE_URL is not valid: \(reason)" }
    }

    public init(parsing string: String) throws(ParseError) {
        guard let components = URLComponents(string: string) else {
            throw ParseError(reason: "not a URL (expected postgres://user:password@host:port/database)")
        }
        guard let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw ParseError(reason: "the scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ParseError(reason: "it names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ParseError(reason: "it names no user")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw ParseError(reason: "it names no database (…/database at the end)")
        }
        var sslMode = SSLMode.disable
        for item in components.queryItems ?? [] where item.name == "sslmode" {
            guard let value = item.value, let mode = SSLMode(rawValue: value) else {
                throw ParseError(reason: "sslmode must be disable, prefer or require")
            }
            sslMode = mode
        }
        self.init(
            host: host, port: components.port ?? 5432, username: user,
            // URLComponents has already decoded user, password and path once; again would turn
            // a password's literal "%41" into "A".
            password: components.password, database: database, sslMode: sslMode)
    }

    /// Client configuration. `role`, when given, is assumed at connection start (`SET ROLE`), so a
    /// schema owner can run the server with the narrow privileges of `lifelog_app`. Connections
    /// open on demand and close after a minute unused. `keepAlive`: how often an idle connection
    /// asks `SELECT 1` (nil: never). `statementTimeout`: the longest one statement may run (nil:
    /// PostgreSQL's own setting). `applicationName` tells this pool's sessions from others' in
    /// `pg_stat_activity` (`serve` makes it unique, to cancel its own statements at a shutdown).
    public func clientConfiguration(role: String? = nil, maximumConnections: Int = 20,
                                    keepAlive: Duration? = nil, statementTimeout: Duration? = nil,
                                    applicationName: String = "lifelog") -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        // PostgreSQL closes its end when it stops, so a dead connection is seen without a ping
        // (ReadinessRecoveryTests); a keep-alive is for a NAT or proxy that drops idle
        // connections silently, and costs a timer per connection handed back.
        configuration.options.keepAliveBehavior = keepAlive.map { .init(frequency: $0) }
        // No minimum: PostgresNIO 1.33.2's pool, once a reconnect has failed (PostgreSQL away),
        // comes back with fewer connections than its minimum, and the next lease that finds none
        // idle trips `precondition(minimum <= active)` and kills the process (issue 24;
        // bench/restart/run reproduces it with a minimum, README "Operations"). Zero is the
        // library's default and the only value that precondition always holds for.
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = Self.sessionParameters(
            role: role, statementTimeout: statementTimeout, applicationName: applicationName)
        return configuration
    }

    /// A connection of its own that starts its session as the pool's do (`clientConfiguration`,
    /// same arguments): for `AppendConnections`.
    public func appendConnectionConfiguration(role: String? = nil, statementTimeout: Duration? = nil,
                                              applicationName: String = "lifelog") throws -> PostgresConnection.Configuration {
        var configuration = try connectionConfiguration(applicationName: applicationName)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = Self.sessionParameters(
            role: role, statementTimeout: statementTimeout, applicationName: applicationName)
        return configuration
    }

    static func sessionParameters(role: String?, statementTimeout: Duration?, applicationName: String) -> [(String, String)] {
        var parameters: [(String, String)] = [
            ("application_name", applicationName),
            // A stuck transaction holds back every gap-safe reader; cut it off.
            ("idle_in_transaction_session_timeout", "60s"),
        ]
        if let role, !role.isEmpty { parameters.append(("role", role)) }
        // One bad plan or one huge request must not hold a database core for minutes (issue 24).
        if let statementTimeout {
            let (seconds, attoseconds) = statementTimeout.components
            parameters.append(("statement_timeout", String(seconds * 1_000 + attoseconds / 1_000_000_000_000_000)))
        }
        return parameters
    }

    /// The URL with the password masked, for logs and messages.
    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }
}

extension PostgresClient {
    /// Runs `body` while the client's connection pool is active, then shuts the pool down.
    public static func withRunning<T>(
        _ configuration: PostgresClient.Configuration,
        logger: Logger,
        _ body: (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let result = try await body(client)
            // A one-shot job runs no ReaderWaker: announce its appends before the pool goes.
            if CommitSignal.of(client).takeIfRung() { try? await ReaderWaker.notify(client, logger: logger) }
            return result
        }
    }
}

extension DatabaseURL {
    /// A single-connection configuration, for LISTEN (which the pool cannot hold) and for
    /// cancelling a pool's statements (`cancelStatements`).
    public func connectionConfiguration(applicationName: String = "lifelog-listener") throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    /// Cancels the statements running in the sessions named `applicationName` (a pool of this
    /// process), from a connection of its own. Signalling a backend takes the login role that
    /// started it, which a session that `SET ROLE` has lost: so not from the pool itself.
    public func cancelStatements(ofApplication applicationName: String, logger: Logger) async throws -> Int {
        let connection = try await PostgresConnection.connect(
            configuration: try connectionConfiguration(applicationName: applicationName + "-canceller"), id: 0, logger: logger)
        do {
            var cancelled = 0
            for try await done in try await connection.rows("""
                SELECT pg_cancel_backend(pid) FROM pg_stat_activity
                WHERE application_name = \(applicationName) AND state = 'active' AND pid <> pg_backend_pid()
                """, logger: logger).decode(Bool.self) where done { cancelled += 1 }
            try await connection.close()
            return cancelled
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
