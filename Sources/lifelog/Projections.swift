import API
import ArgumentParser
import Core
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections
import Synchronization

struct ProjectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projections", abstract: "Inspect and rebuild read models.",
        subcommands: [Status.self, Rebuild.self, Retry.self])

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Each projector, its checkpoint and its lag.")

        func run() async throws {
            let configuration = try Environment.configuration()
            let logger = Environment.logger("lifelog.projections", level: .warning)
            let statuses = try await Environment.withOwnerClient(configuration, logger: logger) { client in
                try await ProjectorStatus.load(AreaCatalog.projectors, client: client, logger: logger)
            }
            let rows = [["PROJECTOR", "MODE", "CHECKPOINT", "LAG EVENTS", "LAG SECONDS", "SET ASIDE"]] + statuses.map {
                [$0.name, $0.mode.rawValue, $0.checkpoint.map { "\($0)" } ?? "in the append's transaction",
                 String($0.lagEvents), String(format: "%.1f", $0.lagSeconds), String($0.deadLetters)]
            }
            let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                print(zip(row, widths).map { $0.padding(toLength: $1 + 2, withPad: " ", startingAt: 0) }.joined())
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply again the events a projector set aside (see the SET ASIDE column of `status`).",
            discussion: "Each event that applies now leaves the list; each that still fails stays, with its new error. Exits non-zero while any still fails.")

        @Argument(help: "The projector (see `lifelog projections status`).")
        var name: String

        func run() async throws {
            let catalog = AreaCatalog.projectors
            guard let projector = ProjectionCatalog.named(name, in: catalog) else {
                throw CLIError("no projector is named \(name); known: \(catalog.map(\.name).joined(separator: ", "))")
            }
            let configuration = try Environment.configuration(signingKeys: true)
            let keyring = try Environment.keyring(configuration)
            let logger = Environment.logger("lifelog.projections", level: .warning)
            let (applied, failing) = try await Environment.withOwnerClient(configuration, logger: logger) { client in
                let outcome = try await DeadLetters.retry(projector, client: client, keyring: keyring, logger: logger)
                return (outcome.applied, try await DeadLetters.list(projector.name, client: client, logger: logger))
            }
            print("\(projector.name): \(applied) applied, \(failing.count) still set aside")
            for entry in failing {
                print("  position \(entry.position) \(entry.eventType) (\(entry.attempts) attempts): \(entry.error)")
            }
            if !failing.isEmpty { throw CLIError("\(failing.count) event(s) of \(projector.name) still cannot be applied") }
        }
    }

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild read models beside the live ones and swap them in.",
            discussion: "Reads never stop; appends wait only for the final swap. A rebuild that is stopped leaves the live tables as they were, and running it again resumes.")

        @Argument(help: "The projector to rebuild (see `lifelog projections status`).")
        var name: String?

        @Flag(help: "Rebuild every projector.")
        var all = false

        @Option(help: "Events per batch.")
        var batchSize = 5_000

        func validate() throws {
            if all == (name != nil) { throw ValidationError("name one projector, or pass --all") }
            if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        }

        func run() async throws {
            let catalog = AreaCatalog.projectors
            let projectors: [any Projector]
            if all {
                projectors = catalog
            } else if let name, let projector = ProjectionCatalog.named(name, in: catalog) {
                projectors = [projector]
            } else {
                throw CLIError("no projector is named \(name ?? ""); known: \(catalog.map(\.name).joined(separator: ", "))")
            }
            let configuration = try Environment.configuration(signingKeys: true)
            let keyring = try Environment.keyring(configuration)
            let logger = Environment.logger("lifelog.rebuild", level: .warning)
            let batchSize = self.batchSize
            try await Environment.withOwnerClient(configuration, logger: logger) { client in
                try await Self.rebuild(projectors, client: client, keyring: keyring, logger: logger, batchSize: batchSize)
            }
        }

        /// Rebuilds each projector in turn, with its progress on stderr and a line when done.
        static func rebuild(
            _ projectors: [any Projector], client: PostgresClient, keyring: OwnerKeyring, logger: Logger, batchSize: Int = 5_000
        ) async throws {
            let rebuilder = ProjectionRebuilder(client: client, keyring: keyring, logger: logger, batchSize: batchSize)
            for projector in projectors {
                let printer = ProgressPrinter()
                let report: RebuildReport
                do {
                    report = try await rebuilder.rebuild(projector) { printer.show($0) }
                } catch let error as RebuildError {
                    throw CLIError(error.description)
                }
                printer.finish()
                let seconds = Double(report.elapsed.components.seconds) + Double(report.elapsed.components.attoseconds) / 1e18
                let cutoverMs = Double(report.cutoverDuration.components.seconds) * 1000 + Double(report.cutoverDuration.components.attoseconds) / 1e15
                print(String(format: "rebuilt %@: %lld events in %.1f s%@, writes paused %.0f ms for the swap",
                             report.projector, report.eventsApplied, seconds, report.resumed ? " (resumed)" : "", cutoverMs))
            }
        }
    }
}

/// Progress on stderr: one line redrawn in place on a terminal, a line every few seconds otherwise.
final class ProgressPrinter: Sendable {
    private let isTerminal = isatty(FileHandle.standardError.fileDescriptor) == 1
    private let lastPrinted = Mutex<Duration?>(nil)

    func show(_ progress: RebuildProgress) {
        let interval: Duration = isTerminal ? .milliseconds(100) : .seconds(5)
        let due = lastPrinted.withLock { last -> Bool in
            if let last, progress.elapsed - last < interval, progress.phase == .replaying { return false }
            last = progress.elapsed
            return true
        }
        guard due else { return }
        let eta = progress.eta.map { "ETA \(Self.clock($0))" } ?? ""
        let line = String(format: "%@: %@ %lld / ~%lld events, %.0f events/s %@",
                          progress.projector, progress.phase.rawValue, progress.eventsApplied, progress.eventsEstimated,
                          progress.eventsPerSecond, eta)
        FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
    }

    func finish() {
        if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func clock(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        return String(format: "%lld:%02lld", seconds / 60, seconds % 60)
    }
}
