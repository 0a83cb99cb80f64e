import EventStore
import Foundation
import Logging
import PostgresNIO

/// A fresh PostgreSQL database per test, copied from a migrated template, on the throwaway
/// cluster that `scripts/test` starts (its URL is in LIFELOG_TEST_DATABASE_URL).
public struct TestDatabase: Sendable {
    public let name: String
    /// Connects as the schema owner (migrations, rebuilds, the CLI).
    public let ownerURL: DatabaseURL
    public let logger: Logger

    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let schemaDirectory = packageRoot.appendingPathComponent("schema")

    public struct MissingCluster: Error, CustomStringConvertible {
        public var description: String {
            "LIFELOG_TEST_DATABASE_URL is not set: run the tests with scripts/test, which starts a throwaway PostgreSQL"
        }
    }

    static func adminURL() throws -> DatabaseURL {
        guard let raw = ProcessInfo.processInfo.environment["LIFELOG_TEST_DATABASE_URL"] else { throw MissingCluster() }
        return try DatabaseURL(parsing: raw)
    }

    public static let logger: Logger = {
        var logger = Logger(label: "lifelog.tests")
        logger.logLevel = ProcessInfo.processInfo.environment["LIFELOG_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    /// The client the server would use: connected as the owner, acting as `lifelog_app`.
    public func appConfiguration(maximumConnections: Int = 20) -> PostgresClient.Configuration {
        ownerURL.clientConfiguration(role: "lifelog_app", maximumConnections: maximumConnections)
    }

    public func ownerConfiguration(maximumConnections: Int = 20) -> PostgresClient.Configuration {
        ownerURL.clientConfiguration(role: nil, maximumConnections: maximumConnections)
    }

    /// Runs `body` with a new database (migrated unless `migrated` is false), then drops it.
    public static func with<T>(migrated: Bool = true, _ body: (TestDatabase) async throws -> T) async throws -> T {
        let admin = try adminURL()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        let template = migrated ? try await Templates.shared.migratedTemplate(admin: admin) : "template0"
        try await DatabaseDDL.shared.oneAtATime {
            try await PostgresClient.withRunning(admin.clientConfiguration(maximumConnections: 2), logger: logger) { client in
                try await client.run("CREATE DATABASE \(unescaped: String(name)) TEMPLATE \(unescaped: template)", logger: logger)
            }
        }
        var url = admin
        url.database = String(name)
        let database = TestDatabase(name: String(name), ownerURL: url, logger: logger)
        do {
            let result = try await body(database)
            try? await drop(name: String(name), admin: admin)
            return result
        } catch {
            try? await drop(name: String(name), admin: admin)
            throw error
        }
    }

    /// Runs `body` with a running client acting as the server's role.
    public static func withAppClient<T>(migrated: Bool = true, _ body: (TestDatabase, PostgresClient) async throws -> T) async throws -> T {
        try await with(migrated: migrated) { database in
            try await PostgresClient.withRunning(database.appConfiguration(), logger: logger) { client in
                try await body(database, client)
            }
        }
    }

    static func drop(name: String, admin: DatabaseURL) async throws {
        try await DatabaseDDL.shared.oneAtATime {
            try await PostgresClient.withRunning(admin.clientConfiguration(maximumConnections: 1), logger: logger) { client in
                try await client.run("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger)
            }
        }
    }
}

/// CREATE and DROP DATABASE hold a transaction id while they copy or remove files, and the
/// snapshot frontier that async readers stop at is cluster-wide. Dozens of tests starting
/// together made each take seconds and held every other test's readers back for as long;
/// one at a time, each takes a fraction of a second.
public actor DatabaseDDL {
    public static let shared = DatabaseDDL()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public func oneAtATime<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}

/// One migrated template database per set of schema files, shared by every test.
actor Templates {
    static let shared = Templates()
    private var ready: String?

    func migratedTemplate(admin: DatabaseURL) async throws -> String {
        if let ready { return ready }
        let migrator = try Migrator(directory: TestDatabase.schemaDirectory)
        let fingerprint = migrator.migrations.map(\.checksum).joined().utf8.reduce(UInt64(14_695_981_039_346_656_037)) {
            ($0 ^ UInt64($1)) &* 1_099_511_628_211
        }
        let name = "lifelog_tpl_\(String(fingerprint, radix: 16))"
        let logger = TestDatabase.logger
        try await PostgresClient.withRunning(admin.clientConfiguration(maximumConnections: 1), logger: logger) { client in
            try await client.withConnection { connection in
                // Test processes may start together: one makes the template, the others wait.
                // The session lock ends with this connection, when the client shuts down.
                try await connection.run("SELECT pg_advisory_lock(4242)", logger: logger)
                var exists = false
                for try await value in try await connection.query(
                    "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = \(name))", logger: logger
                ).decode(Bool.self) { exists = value }
                if !exists {
                    // Made under another name and renamed when complete, so a failed migration
                    // never leaves a template that looks ready.
                    let building = name + "_building"
                    try await connection.run("DROP DATABASE IF EXISTS \(unescaped: building) WITH (FORCE)", logger: logger)
                    try await connection.run("CREATE DATABASE \(unescaped: building)", logger: logger)
                    var url = admin
                    url.database = building
                    try await PostgresClient.withRunning(url.clientConfiguration(maximumConnections: 1), logger: logger) { client in
                        try await migrator.migrate(on: client, logger: logger)
                    }
                    try await connection.run("ALTER DATABASE \(unescaped: building) RENAME TO \(unescaped: name)", logger: logger)
                }
            }
        }
        ready = name
        return name
    }
}
