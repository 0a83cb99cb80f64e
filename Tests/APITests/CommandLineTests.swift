import Domain
import EventStore
import Foundation
import PostgresNIO
import Testing
import TestSupport

/// The `lifelog` executable itself, run as an operator would: every failure is one clear line
/// on stderr and a non-zero exit.
@Suite struct CommandLineTests {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// The binary `swift build` put beside the test bundle.
    static let binary: URL = {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lifelog")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return TestDatabase.packageRoot.appendingPathComponent(".build/debug/lifelog")
    }()

    func run(_ arguments: [String], environment: [String: String]) async throws -> Outcome {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        // Only what the test gives, plus a data folder of its own: nothing from the developer's shell.
        process.environment = ["PATH": "/usr/bin:/bin", "LIFELOG_DATA_DIR": scratch.appendingPathComponent("data").path,
                               "LIFELOG_SCHEMA_DIR": TestDatabase.schemaDirectory.path].merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        return Outcome(status: process.terminationStatus,
                       stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8))
    }

    func expectOneClearLine(_ outcome: Outcome, mentioning words: [String], _ comment: Comment) {
        #expect(outcome.status != 0, comment)
        #expect(outcome.stderrLines.count == 1, "\(comment): \(outcome.stderr)")
        for word in words { #expect(outcome.stderr.contains(word), "\(comment): \(outcome.stderr)") }
        #expect(!outcome.stderr.contains("PSQLError"), comment)
    }

    @Test func badInputIsOneClearLineAndANonZeroExit() async throws {
        expectOneClearLine(try await run(["frobnicate"], environment: [:]), mentioning: ["frobnicate"], "unknown command")
        expectOneClearLine(try await run(["migrate"], environment: ["DATABASE_URL": "mysql://someone@host/db"]),
                           mentioning: ["DATABASE_URL", "postgres://"], "bad DATABASE_URL")
        expectOneClearLine(try await run(["migrate"], environment: ["DATABASE_URL": "postgres://lifelog@127.0.0.1:1/lifelog"]),
                           mentioning: ["cannot reach the database"], "unreachable database")
        expectOneClearLine(try await run(["migrate"], environment: ["DATABASE_URL": "postgres://lifelog@127.0.0.1:1/lifelog",
                                                                    "LIFELOG_SCHEMA_DIR": "/nonexistent/schema"]),
                           mentioning: ["/nonexistent/schema"], "missing schema folder")
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        expectOneClearLine(try await run(["migrate"], environment: ["DATABASE_URL": "postgres://lifelog@127.0.0.1:1/lifelog",
                                                                    "LIFELOG_SCHEMA_DIR": empty.path]),
                           mentioning: ["no migration files"], "empty schema folder")
    }

    @Test func anAppleHealthExportImportsOnceAndAgainStoresNothing() async throws {
        try await AppHarness.with { harness, http in
            _ = try await http.register("importer@example.com")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).xml")
            try AppleHealthExportSample.export(days: 10).write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let environment = ["DATABASE_URL": harness.database.ownerURL.description]
            let first = try await run(["import", "apple-health", "--email", "importer@example.com", file.path], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            // 10 days: 24 steps, 12 heart rates, HRV, resting HR, SpO2, body mass, 1 or 6 sleep segments, workouts on 7 of them: 442.
            #expect(first.stdout.contains("inserted 442, updated 0, duplicates 0, rejected 0, skipped 10"), "\(first.stdout)")
            let again = try await run(["import", "apple-health", "--email", "importer@example.com", file.path], environment: environment)
            #expect(again.stdout.contains("inserted 0, updated 0, duplicates 442"), "\(again.stdout)")
            let unknown = try await run(["import", "apple-health", "--email", "nobody@example.com", file.path], environment: environment)
            expectOneClearLine(unknown, mentioning: ["no account"], "unknown email")
        }
    }

    @Test func aMissingOrUnappliedSchemaIsNamed() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let url = database.ownerURL.description
            expectOneClearLine(try await run(["projections", "status"], environment: ["DATABASE_URL": url]),
                               mentioning: ["lifelog migrate"], "status before migrate")
            let migrated = try await run(["migrate"], environment: ["DATABASE_URL": url])
            #expect(migrated.status == 0, "\(migrated.stderr)")
            let again = try await run(["migrate"], environment: ["DATABASE_URL": url])
            #expect(again.status == 0, "\(again.stderr)")

            // An applied file that has gone from the schema folder is refused by name.
            let partial = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-partial-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: partial) }
            let files = try FileManager.default.contentsOfDirectory(atPath: TestDatabase.schemaDirectory.path).filter { $0.hasSuffix(".sql") }.sorted()
            let dropped = try #require(files.last)
            for file in files.dropLast() {
                try FileManager.default.copyItem(at: TestDatabase.schemaDirectory.appendingPathComponent(file), to: partial.appendingPathComponent(file))
            }
            expectOneClearLine(try await run(["migrate"], environment: ["DATABASE_URL": url, "LIFELOG_SCHEMA_DIR": partial.path]),
                               mentioning: [String(dropped.prefix(4)), "missing"], "applied file missing")
        }
    }
}
