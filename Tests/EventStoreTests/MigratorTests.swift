@testable import EventStore
import Foundation
import PostgresNIO
import Testing
import TestSupport

@Suite struct MigratorTests {
    let logger = TestDatabase.logger

    func scratchSchemaDirectory(_ files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, sql) in files {
            try sql.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }

    @Test func applyingTwiceIsANoOp() async throws {
        try await TestDatabase.with(migrated: false) { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let migrator = try Migrator(directory: TestDatabase.schemaDirectory)
                let first = try await migrator.migrate(on: client, logger: logger)
                #expect(first.map(\.version) == migrator.migrations.map(\.version))
                let second = try await migrator.migrate(on: client, logger: logger)
                #expect(second.isEmpty)
                #expect(try await migrator.pending(on: client, logger: logger).isEmpty)
                let rows = try await client.query("SELECT count(*)::int FROM schema_migrations")
                for try await count in rows.decode(Int.self) { #expect(count == migrator.migrations.count) }
            }
        }
    }

    /// schema/0019: payloads are compressed with lz4 when the server has it (the import's
    /// appends spent a second per million records in pglz), and stay readable either way.
    @Test func eventPayloadsAreCompressedWithLZ4WhereTheServerHasIt() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let rows = try await client.query("""
                    SELECT (SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'),
                           (SELECT attcompression::text FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'data')
                    """)
                for try await (hasLZ4, compression) in rows.decode((Bool, String).self) {
                    #expect(compression == (hasLZ4 ? "l" : ""))
                }
            }
        }
    }

    @Test func concurrentMigratorsApplyEachFileOnce() async throws {
        try await TestDatabase.with(migrated: false) { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                let migrator = try Migrator(directory: TestDatabase.schemaDirectory)
                let applied = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<4 { group.addTask { try await migrator.migrate(on: client, logger: logger).count } }
                    return try await group.reduce(0, +)
                }
                #expect(applied == migrator.migrations.count)
            }
        }
    }

    @Test func aChangedAppliedFileIsRefusedWithAClearMessage() async throws {
        let original = ["0001_first.sql": "CREATE TABLE first (id int);", "0002_second.sql": "CREATE TABLE second (id int);"]
        try await TestDatabase.with(migrated: false) { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                try await Migrator(directory: scratchSchemaDirectory(original)).migrate(on: client, logger: logger)

                var edited = original
                edited["0001_first.sql"] = "CREATE TABLE first (id bigint);"
                edited["0003_third.sql"] = "CREATE TABLE third (id int);"
                let changed = try Migrator(directory: scratchSchemaDirectory(edited))
                await #expect(throws: MigrationError.appliedFileChanged(file: "0001_first.sql")) {
                    try await changed.migrate(on: client, logger: logger)
                }
                #expect(MigrationError.appliedFileChanged(file: "0001_first.sql").description.contains("0001_first.sql was changed after it was applied"))

                var missing = original
                missing.removeValue(forKey: "0002_second.sql")
                let incomplete = try Migrator(directory: scratchSchemaDirectory(missing))
                await #expect(throws: MigrationError.appliedFileMissing(version: 2, name: "second")) {
                    try await incomplete.migrate(on: client, logger: logger)
                }
                // Neither refusal applied the new file.
                let rows = try await client.query("SELECT to_regclass('third') IS NULL")
                for try await absent in rows.decode(Bool.self) { #expect(absent) }
            }
        }
    }

    @Test func aFailingMigrationRollsBackAndNamesTheFile() async throws {
        let files = ["0001_ok.sql": "CREATE TABLE ok (id int);", "0002_broken.sql": "CREATE TABLE half (id int);\nCREATE TABLE nonsense (id notatype);"]
        try await TestDatabase.with(migrated: false) { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(), logger: logger) { client in
                await #expect {
                    try await Migrator(directory: scratchSchemaDirectory(files)).migrate(on: client, logger: logger)
                } throws: { error in
                    guard case MigrationError.failed(let file, let reason) = error else { return false }
                    return file == "0002_broken.sql" && reason.contains("notatype")
                }
                let rows = try await client.query("SELECT to_regclass('ok') IS NOT NULL, to_regclass('half') IS NULL")
                for try await (okApplied, halfRolledBack) in rows.decode((Bool, Bool).self) {
                    #expect(okApplied)
                    #expect(halfRolledBack)
                }
            }
        }
    }

    @Test func aMissingDirectoryOrBadFileNameIsAClearError() throws {
        #expect(throws: MigrationError.directoryMissing("/nonexistent/schema")) {
            try Migrator(directory: URL(fileURLWithPath: "/nonexistent/schema"))
        }
        let directory = try scratchSchemaDirectory(["first.sql": "SELECT 1;"])
        #expect(throws: MigrationError.badFileName("first.sql")) { try Migrator(directory: directory) }
    }

    @Test func scriptsSplitOnSemicolonsOutsideQuotesAndBodies() {
        let sql = """
            -- a comment; with a semicolon
            CREATE TABLE a (t text DEFAULT 'x;y');
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
            /* block; comment */ SELECT "odd;name" FROM a;
            DO $body$ BEGIN PERFORM 1; END $body$
            """
        let statements = SQLScript.statements(sql)
        #expect(statements.count == 4)
        #expect(statements[1].hasSuffix("END $$"))
        #expect(statements[3].hasPrefix("DO $body$"))
    }

    /// An owner that is not a superuser (a managed database's admin role, with CREATEROLE) can
    /// migrate, and the server can then act as lifelog_app on its connections.
    @Test func aNonSuperuserOwnerCanMigrateAndServeAsTheAppRole() async throws {
        let admin = try DatabaseURL(parsing: try #require(ProcessInfo.processInfo.environment["LIFELOG_TEST_DATABASE_URL"]))
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let role = "owner_\(suffix)", name = "t_owned_\(suffix)"
        // Cluster-wide DDL goes through the harness's gate, like every test database.
        try await DatabaseDDL.shared.oneAtATime {
            try await PostgresClient.withRunning(admin.clientConfiguration(maximumConnections: 1), logger: logger) { client in
                try await client.run("CREATE ROLE \(unescaped: role) LOGIN CREATEROLE", logger: logger)
                try await client.run("CREATE DATABASE \(unescaped: name) OWNER \(unescaped: role)", logger: logger)
            }
        }
        do {
            var owned = admin
            owned.username = role
            owned.database = name
            try await PostgresClient.withRunning(owned.clientConfiguration(maximumConnections: 1), logger: logger) { client in
                try await Migrator(directory: TestDatabase.schemaDirectory).migrate(on: client, logger: logger)
            }
            try await PostgresClient.withRunning(owned.clientConfiguration(role: "lifelog_app", maximumConnections: 1), logger: logger) { client in
                for try await user in try await client.query("SELECT current_user::text").decode(String.self) { #expect(user == "lifelog_app") }
                try await client.run("SELECT count(*) FROM events", logger: logger)
            }
        } catch {
            try? await Self.dropOwned(role: role, database: name, admin: admin)
            throw error
        }
        try await Self.dropOwned(role: role, database: name, admin: admin)
    }

    static func dropOwned(role: String, database: String, admin: DatabaseURL) async throws {
        try await DatabaseDDL.shared.oneAtATime {
            try await PostgresClient.withRunning(admin.clientConfiguration(maximumConnections: 1), logger: TestDatabase.logger) { client in
                try await client.run("DROP DATABASE IF EXISTS \(unescaped: database) WITH (FORCE)", logger: TestDatabase.logger)
                try await client.run("DROP ROLE IF EXISTS \(unescaped: role)", logger: TestDatabase.logger)
            }
        }
    }

}
