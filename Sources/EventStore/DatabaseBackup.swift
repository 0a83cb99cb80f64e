import Foundation
import Logging
import PostgresNIO

/// `lifelog backup` and `lifelog restore`: a consistent `pg_dump` of the whole database in
/// custom format, and its restore into an empty database.
///
/// Restoring into another cluster has a trap an event store must not fall into: the log orders
/// events by (transaction_id, global_position) and gap-safe readers only read below the
/// snapshot's xmin, but transaction ids are the old cluster's. Restored there, they can lie far
/// above the new cluster's counter: async projectors would not see them, and new events would
/// sort before them. So the restore loads the data first, gives every restored event (and
/// checkpoint) the restoring transaction's own id, in log order unchanged, and only then
/// creates the indexes and the append-only trigger. The caller then rebuilds every read model.
public enum DatabaseBackup {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes a backup of `url`'s database to `file` (custom format; the server may be running:
    /// pg_dump reads one snapshot).
    public static func dump(_ url: DatabaseURL, to file: String) async throws {
        try await run("pg_dump", ["--format=custom", "--file=\(file)", "--dbname=\(url.database)"], url: url)
    }

    /// Restores `file` into `url`'s database, which must be empty (no table, sequence or view in
    /// `public`). Read models are restored as they were and must be rebuilt after it.
    public static func restore(_ url: DatabaseURL, from file: String, client: PostgresClient, logger: Logger) async throws {
        guard FileManager.default.isReadableFile(atPath: file) else { throw Failure(description: "cannot read \(file)") }
        var relations = 0
        for try await count in try await client.rows("""
            SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S', 'v', 'm')
            """, logger: logger).decode(Int.self) { relations = count }
        guard relations == 0 else {
            throw Failure(description: "the database \(url.database) is not empty (\(relations) tables, views or sequences): restore into a new, empty database")
        }
        // The server's role and the owner's right to act as it, as migrations 0001 and 0007 make them:
        // roles belong to the cluster, not to the dump.
        try await client.run("""
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lifelog_app') THEN CREATE ROLE lifelog_app NOLOGIN; END IF;
              IF NOT pg_has_role(current_user, 'lifelog_app', 'MEMBER') THEN EXECUTE format('GRANT lifelog_app TO %I', current_user); END IF;
            END $$
            """, logger: logger)
        let common = ["--no-owner", "--exit-on-error", "--single-transaction", "--dbname=\(url.database)"]
        try await run("pg_restore", ["--section=pre-data", "--section=data"] + common + [file], url: url)
        try await client.transaction(logger: logger) { connection in
            try await connection.run("UPDATE events SET transaction_id = pg_current_xact_id()", logger: logger)
            try await connection.run("UPDATE projection_checkpoints SET transaction_id = pg_current_xact_id()", logger: logger)
            try await connection.run("UPDATE projection_dead_letters SET transaction_id = pg_current_xact_id()", logger: logger)
        }
        try await run("pg_restore", ["--section=post-data"] + common + [file], url: url)
    }

    /// Runs a PostgreSQL client tool with the URL's credentials in its environment (never in its
    /// arguments, which other users of the machine can read).
    static func run(_ tool: String, _ arguments: [String], url: DatabaseURL) async throws {
        let process = Process()
        process.executableURL = try locate(tool)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PGHOST"] = url.host
        environment["PGPORT"] = String(url.port)
        environment["PGUSER"] = url.username
        environment["PGPASSWORD"] = url.password
        environment["PGSSLMODE"] = url.sslMode.rawValue
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        let finished: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: Failure(description: "could not start \(tool): \(error)"))
            }
        }
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard finished == 0 else {
            throw Failure(description: "\(tool) failed (exit \(finished)): \(said.split(separator: "\n").prefix(5).joined(separator: "; "))")
        }
    }

    /// The tool from PATH, else from the newest PostgreSQL under /usr/lib/postgresql (Debian's
    /// packages keep them there).
    static func locate(_ tool: String) throws -> URL {
        let fileManager = FileManager.default
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where fileManager.isExecutableFile(atPath: "\(directory)/\(tool)") {
            return URL(fileURLWithPath: "\(directory)/\(tool)")
        }
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) })
        where fileManager.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/\(tool)") {
            return URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin/\(tool)")
        }
        throw Failure(description: "\(tool) was not found (Debian: apt-get install postgresql-client)")
    }
}
