import API
import ArgumentParser
import Core
import Domain
import EventStore
import Foundation
import Logging
import Projections

// `lifelog import lifelog|loop|firefly --email E [--dry-run] FILE` (issue 29): the file read here,
// everything else in `ImportService`. Each prints the report (counts, each reason for skipping,
// each failure as `line N: reason`, notes) on standard output, and on a terminal shows its
// progress on standard error, redrawn in place.
extension ImportCommand {
    struct LifelogExport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lifelog",
            abstract: "Import a lifelog export (lifelog export, GET /api/v1/export) into an account. Importing it again stores nothing twice.")
        @Option(help: "The account's email.") var email: String
        @Flag(name: .customLong("dry-run"), help: "Read and count every line; store nothing.") var dryRun = false
        @Argument(help: "The export (NDJSON), or - for standard input.") var file: String

        func run() async throws {
            let path = file, dryRun = self.dryRun
            let handle = try ImportCommand.open(path)
            let size = path == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            let report = try await ImportCommand.withImports(email: email) { imports, owner in
                var run = imports.lifelog(into: owner, dryRun: dryRun)
                var lines = NDJSONLines()
                let progress = Progress(unit: "lines")
                while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try await run.feed(lines.feed(chunk))
                    progress.draw(run.report.read, fraction: size.map { Double(lines.bytesRead) / Double(max($0, 1)) })
                }
                try await run.feed(lines.finish())
                let report = try await run.finish()
                progress.end(report.read)
                return report
            }
            print(report.description)
        }
    }

    struct Loop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "loop",
            abstract: "Import Loop Habit Tracker's CSV export (its zip, or the folder unpacked) into an account. Importing it again stores nothing twice.")
        @Option(help: "The account's email.") var email: String
        @Flag(name: .customLong("dry-run"), help: "Read and count every habit and day; store nothing.") var dryRun = false
        @Argument(help: "Loop's export: the zip (needs `unzip`), or the folder holding Habits.csv") var file: String

        func run() async throws {
            let export = try ImportCommand.loopExport(file)
            let dryRun = self.dryRun
            let report = try await ImportCommand.withImports(email: email) { imports, owner in
                let progress = Progress(unit: "items")
                let report = try await imports.loop(into: owner, export, dryRun: dryRun) { progress.draw($0.read, fraction: nil) }
                progress.end(report.read)
                return report
            }
            print(report.description)
        }
    }

    struct Firefly: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "firefly",
            abstract: "Import Firefly III's transactions export (CSV) into an account. Importing it again stores nothing twice.")
        @Option(help: "The account's email.") var email: String
        @Flag(name: .customLong("dry-run"), help: "Read and count every row; store nothing.") var dryRun = false
        @Argument(help: "Firefly III's export of transactions (CSV)") var file: String

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("cannot read \(file)") }
            let csv = String(decoding: data, as: UTF8.self), dryRun = self.dryRun
            let report = try await ImportCommand.withImports(email: email) { imports, owner in
                let progress = Progress(unit: "rows")
                let report = try await imports.firefly(into: owner, csv: csv, dryRun: dryRun) { progress.draw($0.read, fraction: nil) }
                progress.end(report.read)
                return report
            }
            print(report.description)
        }
    }

    /// Runs `body` with the import service of `serve`'s services and the account of `email`; a
    /// file its importer cannot read is one line, as every failure of the command.
    static func withImports<T: Sendable>(email: String, _ body: @escaping @Sendable (ImportService, UUID) async throws -> T) async throws -> T {
        let configuration = try Environment.configuration(signingKeys: true)
        let keyring = try Environment.keyring(configuration)
        let logger = Environment.logger("lifelog.import", level: .warning)
        do {
            return try await Environment.withOwnerClient(configuration, logger: logger) { client in
                guard let owner = try await AccountsReadModel(client: client, logger: logger).userId(email: Email.normalize(email)) else {
                    throw CLIError("no account has this email")
                }
                let store = PostgresEventStore(
                    client: client, keyring: keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
                let accounts = try await makeAccountService(client: client, keys: configuration.signingKeys, clock: SystemClock(), logger: logger)
                let services = Services(store: store, clock: SystemClock(), sealer: accounts.secretSealer, logger: logger)
                // The pool has four connections: four streams at once keep each busy.
                return try await body(ImportService(services: services, profiles: accounts.profiles, width: 4), owner)
            }
        } catch let error as ImportFileError {
            throw CLIError(error.reason)
        }
    }

    static func open(_ path: String) throws -> FileHandle {
        if path == "-" { return FileHandle.standardInput }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError("cannot read \(path)") }
        return handle
    }

    /// One line on standard error, redrawn in place at most twice a second: items so far, their
    /// rate, and the share of the file read with an ETA when known. Nothing when it is no terminal.
    final class Progress: @unchecked Sendable {
        let unit: String
        let terminal = isatty(2) == 1
        let started = ContinuousClock.now
        var drawn = ContinuousClock.now

        init(unit: String) { self.unit = unit }

        func draw(_ done: Int, fraction: Double?) {
            guard terminal, ContinuousClock.now - drawn > .milliseconds(500) else { return }
            drawn = .now
            let elapsed = max(0.001, AppleHealth.seconds(ContinuousClock.now - started))
            var line = "\r\(done) \(unit), " + String(format: "%.0f", Double(done) / elapsed) + " \(unit)/s"
            if let fraction, fraction > 0 {
                line += String(format: ", %.0f%%, ETA %.0f s   ", 100 * min(fraction, 1), max(0, elapsed / fraction - elapsed))
            }
            FileHandle.standardError.write(Data(line.utf8))
        }

        func end(_ done: Int) {
            guard terminal else { return }
            let elapsed = max(0.001, AppleHealth.seconds(ContinuousClock.now - started))
            let rate = String(format: "%.1f s (%.0f", elapsed, Double(done) / elapsed)
            FileHandle.standardError.write(Data("\r\(done) \(unit) in \(rate) \(unit)/s)        \n".utf8))
        }
    }
}
