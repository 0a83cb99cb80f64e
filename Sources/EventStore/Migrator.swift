import Crypto
import Foundation
import Logging
import PostgresNIO

/// One numbered SQL file of `schema/`, e.g. `0002_activity_read_models.sql`.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String
    public var checksum: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    public var fileName: String { String(format: "%04d_%@.sql", version, name) }
}

public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case directoryMissing(String)
    case badFileName(String)
    case duplicateVersion(Int)
    case appliedFileMissing(version: Int, name: String)
    case appliedFileChanged(file: String)
    case failed(file: String, reason: String)
    case noMigrations(String)

    public var description: String {
        switch self {
        case .directoryMissing(let path):
            "migrations directory \(path) not found (set LIFELOG_SCHEMA_DIR)"
        case .noMigrations(let path):
            "no migration files (NNNN_name.sql) in \(path): is LIFELOG_SCHEMA_DIR right?"
        case .badFileName(let name):
            "migration file \(name) is not named NNNN_name.sql"
        case .duplicateVersion(let version):
            "two migration files have number \(version)"
        case let .appliedFileMissing(version, name):
            "migration \(String(format: "%04d", version))_\(name).sql was applied to the database but its file is missing from schema/"
        case .appliedFileChanged(let file):
            "migration \(file) was changed after it was applied; add a new migration instead of editing an applied one"
        case let .failed(file, reason):
            "migration \(file) failed: \(reason)"
        }
    }
}

/// Applies `schema/*.sql` in order, each in its own transaction, recording a checksum per file.
public struct Migrator: Sendable {
    public var migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Loads the numbered files of `directory`.
    public init(directory: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MigrationError.directoryMissing(directory.path)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
        var migrations: [Migration] = []
        for fileName in names {
            let stem = fileName.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]) else {
                throw MigrationError.badFileName(fileName)
            }
            let sql = try String(contentsOf: directory.appendingPathComponent(fileName), encoding: .utf8)
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        // An empty folder would read as "up to date" and skip every check of the applied files.
        guard !migrations.isEmpty else { throw MigrationError.noMigrations(directory.path) }
        if let duplicate = Dictionary(grouping: migrations, by: \.version).first(where: { $0.value.count > 1 }) {
            throw MigrationError.duplicateVersion(duplicate.key)
        }
        self.init(migrations: migrations)
    }

    /// Finds `schema/`: `LIFELOG_SCHEMA_DIR`, then `./schema`, then beside or above the executable.
    public static func locateSchemaDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let configured = environment["LIFELOG_SCHEMA_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("schema")]
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(directory.appendingPathComponent("schema"))
            directory = directory.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates[0]
    }

    static func ensureLedger(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
              version    integer     PRIMARY KEY,
              name       text        NOT NULL,
              checksum   text        NOT NULL,
              applied_at timestamptz NOT NULL DEFAULT clock_timestamp())
            """, logger: logger)
    }

    /// Applied versions with their checksums; empty when nothing was ever applied.
    public static func applied(on connection: PostgresConnection, logger: Logger) async throws -> [Int: (name: String, checksum: String)] {
        let exists = try await connection.rows("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)
        var hasLedger = false
        for try await value in exists.decode(Bool.self) { hasLedger = value }
        guard hasLedger else { return [:] }
        var applied: [Int: (name: String, checksum: String)] = [:]
        let rows = try await connection.rows("SELECT version, name, checksum FROM schema_migrations", logger: logger)
        for try await (version, name, checksum) in rows.decode((Int, String, String).self) {
            applied[version] = (name, checksum)
        }
        return applied
    }

    /// Refuses when an applied migration's file is missing or was edited.
    func verify(applied: [Int: (name: String, checksum: String)]) throws {
        let byVersion = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = byVersion[version] else {
                throw MigrationError.appliedFileMissing(version: version, name: record.name)
            }
            if migration.checksum != record.checksum {
                throw MigrationError.appliedFileChanged(file: migration.fileName)
            }
        }
    }

    /// The migrations not yet applied, after checking the applied ones are unchanged.
    public func pending(on client: PostgresClient, logger: Logger) async throws -> [Migration] {
        try await client.withConnection { connection in
            let applied = try await Self.applied(on: connection, logger: logger)
            try verify(applied: applied)
            return migrations.filter { applied[$0.version] == nil }
        }
    }

    /// Applies what is pending and returns the files applied now. Safe to run twice and from
    /// several processes at once: each migration takes a lock and re-checks inside its transaction.
    @discardableResult
    public func migrate(on client: PostgresClient, logger: Logger) async throws -> [Migration] {
        try await client.withConnection { connection in
            try await connection.transaction(logger: logger) { connection in
                try await connection.run("SELECT pg_advisory_xact_lock(\(AdvisoryLock.migrations.0), \(AdvisoryLock.migrations.1))", logger: logger)
                try await Self.ensureLedger(on: connection, logger: logger)
            }
            // Checked even when nothing is pending: a changed or missing applied file is refused.
            try verify(applied: try await Self.applied(on: connection, logger: logger))
            var appliedNow: [Migration] = []
            for migration in migrations {
                let didApply = try await apply(migration, on: connection, logger: logger)
                if didApply { appliedNow.append(migration) }
            }
            return appliedNow
        }
    }

    private func apply(_ migration: Migration, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        do {
            return try await connection.transaction(logger: logger) { connection in
                try await connection.run("SELECT pg_advisory_xact_lock(\(AdvisoryLock.migrations.0), \(AdvisoryLock.migrations.1))", logger: logger)
                let applied = try await Self.applied(on: connection, logger: logger)
                try verify(applied: applied)
                if applied[migration.version] != nil { return false }
                for statement in SQLScript.statements(migration.sql) {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.run("""
                    INSERT INTO schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                    """, logger: logger)
                logger.info("applied migration", metadata: ["file": "\(migration.fileName)"])
                return true
            }
        } catch {
            let unwrapped = PostgresErrors.unwrap(error)
            if unwrapped is MigrationError { throw unwrapped }
            if let message = PostgresErrors.message(unwrapped) {
                throw MigrationError.failed(file: migration.fileName, reason: message)
            }
            throw unwrapped
        }
    }
}
