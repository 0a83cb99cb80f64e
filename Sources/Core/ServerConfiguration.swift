import EventStore
import Foundation
import Logging

/// Settings from environment variables, with defaults for local use. Every variable is listed
/// in the README.
public struct ServerConfiguration: Sendable {
    public var databaseURL: DatabaseURL
    /// The role the server acts as (SET ROLE at connection start); empty to keep the login role.
    public var databaseRole: String?
    public var host: String
    public var port: Int
    public var schemaDirectory: URL
    public var migrateOnStart: Bool
    public var logLevel: Logger.Level
    public var maxBodyBytes: Int
    /// The limit for ingestion batches (`/api/v1/ingest/*`), which are larger than other requests.
    public var maxIngestBytes: Int
    public var projectorPollInterval: Duration
    public var databaseMaxConnections: Int
    /// `DATABASE_APPEND_CONNECTIONS`: connections kept beside the pool for appends (8; 0 for
    /// none), which skip the pool's per-lease timers (`AppendConnections`).
    public var databaseAppendConnections: Int = 8
    /// `DATABASE_KEEPALIVE_SECONDS`: idle connections ask `SELECT 1` this often; nil (0, the
    /// default) sends none, for a database the server reaches without a NAT or proxy between.
    public var databaseKeepAlive: Duration?
    /// `DATABASE_STATEMENT_TIMEOUT_MS`: the longest one statement of the server's pool may run
    /// (30 s); nil (0) for no limit. Async projector batches lift it for their own transaction.
    public var databaseStatementTimeout: Duration? = .seconds(30)
    /// Local state of a development setup (the generated signing key).
    public var dataDirectory: URL
    public var signingKeys: [SigningKey]
    /// `LIFELOG_WEBHOOK_ALLOW_PRIVATE`: webhooks may go to loopback, link-local and private
    /// addresses (a receiver on the same host or network). Off by default.
    public var webhookAllowPrivate = false
    /// `LIFELOG_REMINDERS`: whether `serve` runs the reminder job every minute (on by default).
    public var remindersInServe = true
    /// Time limits at the HTTP edge.
    public var edge = EdgeLimits()
    /// `REGISTRATIONS_PER_ADDRESS`: registrations one address may make in 15 minutes.
    public var registrationsPerAddress = 10
    /// `TRUSTED_PROXIES`: proxies in front of the server whose `X-Forwarded-For` is believed.
    public var trustedProxies = TrustedProxies.none

    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// `signingKeys` false (migrations, projections) skips the keys, and with them the
    /// generation of a development key that only token-issuing commands need.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger = Logger(label: "lifelog"),
        signingKeys: Bool = true
    ) throws -> ServerConfiguration {
        // Over 60 lines: one line or two per environment variable, read in one place.
        guard let rawURL = environment["DATABASE_URL"], !rawURL.isEmpty else {
            throw Invalid(description: "DATABASE_URL is not set (scripts/serve starts a local PostgreSQL and sets it for you)")
        }
        let url: DatabaseURL
        do { url = try DatabaseURL(parsing: rawURL) } catch { throw Invalid(description: error.description) }

        func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
            guard let raw = environment[name], !raw.isEmpty else { return value }
            guard let parsed = Int(raw), range.contains(parsed) else {
                throw Invalid(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(raw)")
            }
            return parsed
        }
        let level: Logger.Level
        if let raw = environment["LOG_LEVEL"], !raw.isEmpty {
            guard let parsed = Logger.Level(rawValue: raw.lowercased()) else {
                throw Invalid(description: "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical")
            }
            level = parsed
        } else {
            level = .info
        }
        let dataDirectory = URL(fileURLWithPath: environment["LIFELOG_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? ".data")
        var keys: [SigningKey] = []
        do {
            if signingKeys { keys = try SigningKeyConfiguration.keys(environment: environment, dataDirectory: dataDirectory, logger: logger) }
        } catch let error as SigningKeyConfiguration.Invalid {
            throw Invalid(description: error.description)
        } catch {
            // Typically a data folder the server may not write to (a container's read-only /app).
            throw Invalid(description: "cannot keep a development signing key in \(dataDirectory.path) (\(error.localizedDescription)); "
                + "set JWT_SECRET or JWT_KEYS, or LIFELOG_DATA_DIR to a writable folder")
        }
        func flag(_ name: String, default value: Bool) -> Bool {
            guard let text = environment[name]?.lowercased(), !text.isEmpty else { return value }
            return !["0", "false", "no", "off"].contains(text)
        }
        let migrate = flag("LIFELOG_MIGRATE_ON_START", default: true)
        let keepAlive = try integer("DATABASE_KEEPALIVE_SECONDS", default: 0, in: 0...3_600)
        let statementTimeout = try integer("DATABASE_STATEMENT_TIMEOUT_MS", default: 30_000, in: 0...86_400_000)
        let proxies: TrustedProxies
        do { proxies = try TrustedProxies(parsing: environment["TRUSTED_PROXIES"] ?? "") } catch { throw Invalid(description: error.description) }
        return ServerConfiguration(
            databaseURL: url,
            databaseRole: environment["DATABASE_ROLE"] ?? "lifelog_app",
            host: environment["HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1",
            port: try integer("PORT", default: 8080, in: 1...65535),
            schemaDirectory: Migrator.locateSchemaDirectory(environment: environment),
            migrateOnStart: migrate,
            logLevel: level,
            maxBodyBytes: try integer("MAX_BODY_BYTES", default: 1_048_576, in: 1_024...104_857_600),
            maxIngestBytes: try integer("MAX_INGEST_BYTES", default: 33_554_432, in: 1_024...1_073_741_824),
            projectorPollInterval: .milliseconds(try integer("PROJECTOR_POLL_MS", default: 1_000, in: 10...60_000)),
            databaseMaxConnections: try integer("DATABASE_MAX_CONNECTIONS", default: 20, in: 2...500),
            databaseAppendConnections: try integer("DATABASE_APPEND_CONNECTIONS", default: 8, in: 0...500),
            databaseKeepAlive: keepAlive == 0 ? nil : .seconds(keepAlive),
            databaseStatementTimeout: statementTimeout == 0 ? nil : .milliseconds(statementTimeout),
            dataDirectory: dataDirectory,
            signingKeys: keys,
            webhookAllowPrivate: flag("LIFELOG_WEBHOOK_ALLOW_PRIVATE", default: false),
            remindersInServe: flag("LIFELOG_REMINDERS", default: true),
            edge: EdgeLimits(
                headerTimeout: .seconds(try integer("HTTP_HEADER_TIMEOUT_SECONDS", default: 10, in: 1...600)),
                bodyTimeout: .seconds(try integer("HTTP_BODY_TIMEOUT_SECONDS", default: 60, in: 1...3_600)),
                idleTimeout: .seconds(try integer("HTTP_IDLE_TIMEOUT_SECONDS", default: 60, in: 1...3_600)),
                databaseWait: .milliseconds(try integer("DATABASE_WAIT_MS", default: 2_000, in: 100...600_000)),
                shutdownGrace: .seconds(try integer("SHUTDOWN_GRACE_SECONDS", default: 10, in: 1...600))),
            registrationsPerAddress: try integer("REGISTRATIONS_PER_ADDRESS", default: 10, in: 1...1_000_000),
            trustedProxies: proxies)
    }
}

/// How long the server waits for a client's bytes, for a database connection, and for its own
/// requests at shutdown. Every limit has its variable (README, operations).
public struct EdgeLimits: Sendable, Equatable {
    /// From a request's first byte to the end of its head (`HTTP_HEADER_TIMEOUT_SECONDS`).
    public var headerTimeout: Duration
    /// From a request's head to the end of its body (`HTTP_BODY_TIMEOUT_SECONDS`).
    public var bodyTimeout: Duration
    /// A keep-alive connection with no request (`HTTP_IDLE_TIMEOUT_SECONDS`).
    public var idleTimeout: Duration
    /// The longest a request waits for the database before a 503 (`DATABASE_WAIT_MS`).
    public var databaseWait: Duration
    /// After SIGTERM, in-flight requests get this long before they are cut (`SHUTDOWN_GRACE_SECONDS`).
    public var shutdownGrace: Duration

    /// How long a read asked for `?min_position=` waits for the async read models before it
    /// answers 202 "not yet" (3 s; the test harness, on a loaded machine, waits longer).
    public var readWait: Duration

    public init(headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(60),
                databaseWait: Duration = .seconds(2), shutdownGrace: Duration = .seconds(10), readWait: Duration = .seconds(3)) {
        self.readWait = readWait
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.databaseWait = databaseWait
        self.shutdownGrace = shutdownGrace
    }
}
