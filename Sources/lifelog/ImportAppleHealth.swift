import API
import ArgumentParser
import Core
import Domain
import EventStore
import Foundation
import Logging
import Projections

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import data: Apple Health's export, lifelog's own, Loop Habit Tracker's, Firefly III's.",
        subcommands: [AppleHealth.self, LifelogExport.self, Loop.self, Firefly.self])

    struct AppleHealth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apple-health",
            abstract: "Import Apple Health's export (export.zip, or the export.xml inside it) into an account. Importing it again stores nothing twice.")
        @Option(help: "The account's email.") var email: String
        @Argument(help: "export.zip (needs `unzip`) or export.xml") var file: String

        func run() async throws {
            let configuration = try Environment.configuration(signingKeys: true)
            let keyring = try Environment.keyring(configuration)
            let logger = Environment.logger("lifelog.import", level: .warning)
            let path = file, email = self.email
            guard FileManager.default.isReadableFile(atPath: path) else { throw CLIError("cannot read \(path)") }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            let source = try ExportSource(path: path)
            let summary = try await Environment.withOwnerClient(configuration, logger: logger) { client in
                let store = PostgresEventStore(
                    client: client, keyring: keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
                guard let userId = try await AccountsReadModel(client: client, logger: logger).userId(email: email) else {
                    throw CLIError("no account has this email")
                }
                // A one-shot process: this is all it builds, so it builds it here (no server's services to share).
                let health = HealthService(ServiceBasis(store: store, clock: SystemClock(), logger: logger))
                return try await Self.importAll(from: source, into: health, userId: userId, compressedSize: source.isZip ? size : nil, size: source.isZip ? nil : size)
            }
            print(summary)
        }

        /// Feeds the file through the reader in 1 MiB chunks and stores every 5,000 items as one
        /// ingestion (one transaction each): memory stays flat whatever the file's size. While one
        /// batch is stored, the next is read and decided (`HealthService.decideAhead`), so the
        /// database and the reading and deciding work side by side.
        static func importAll(from source: ExportSource, into health: HealthService, userId: UUID, compressedSize: Int?, size: Int?) async throws -> String {
            var reader = AppleHealthExportReader()
            var batch = HealthIntake()
            var totals = Totals()
            let started = ContinuousClock.now
            let terminal = isatty(2) == 1
            var lastDrawn = ContinuousClock.now
            let context = CommandContext(userId: userId)
            func pending(_ intake: HealthIntake) -> Int { intake.samples.count + intake.sleep.count + intake.workouts.count + intake.rejected + intake.skipped }
            func decide(_ intake: HealthIntake, after previous: HealthService.IngestAhead?) async throws -> HealthService.IngestAhead? {
                do { return try await health.decideAhead(context, deviceId: nil, intake, format: "apple_export", after: previous) } catch EventStoreError.wrongExpectedVersion { return nil }
            }
            // The batch being stored: nil from its task when another writer got in between, and
            // then it is stored the ordinary way.
            try await withThrowingTaskGroup(of: HealthIngestionReport?.self) { group in
                var storing: (intake: HealthIntake, decided: HealthService.IngestAhead)?
                /// Waits for the batch being stored; false when it had to be stored again the
                /// ordinary way (what was decided after it is then stale).
                func settle() async throws -> Bool {
                    guard let current = storing else { return true }
                    storing = nil
                    if let report = try await group.next() ?? nil { totals.add(report); return true }
                    totals.add(try await health.ingest(context, deviceId: nil, current.intake, format: "apple_export"))
                    return false
                }
                func store(_ intake: HealthIntake) async throws {
                    var decided = try await decide(intake, after: storing?.decided)
                    if try await !settle() { decided = nil }
                    if decided == nil { decided = try await decide(intake, after: nil) }
                    guard let ready = decided else {
                        totals.add(try await health.ingest(context, deviceId: nil, intake, format: "apple_export"))
                        return
                    }
                    group.addTask {
                        do { return try await health.append(ready) } catch EventStoreError.wrongExpectedVersion { return nil }
                    }
                    storing = (intake, ready)
                }
                while let chunk = try source.next() {
                    batch.append(reader.feed(chunk))
                    if pending(batch) >= 5_000 {
                        try await store(batch)
                        batch = HealthIntake()
                    }
                    if terminal, ContinuousClock.now - lastDrawn > .milliseconds(500) {
                        lastDrawn = ContinuousClock.now
                        FileHandle.standardError.write(Data(Self.progress(reader, size: size, since: started).utf8))
                    }
                }
                batch.append(reader.finish())
                if pending(batch) > 0 { try await store(batch) }
                _ = try await settle()
            }
            if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
            let seconds = Self.seconds(ContinuousClock.now - started)
            return String(format: "imported %d records in %.1f s (%.0f records/s): ", reader.recordsSeen, seconds, Double(reader.recordsSeen) / max(seconds, 0.001))
                + totals.description
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        /// One line, redrawn in place: records so far, their rate, and (for a bare export.xml) the share read and an ETA.
        static func progress(_ reader: AppleHealthExportReader, size: Int?, since started: ContinuousClock.Instant) -> String {
            let elapsed = max(0.001, seconds(ContinuousClock.now - started))
            var line = String(format: "\r%d records, %.0f records/s", reader.recordsSeen, Double(reader.recordsSeen) / elapsed)
            if let size, reader.bytesConsumed > 0 {
                let remaining = Double(size - reader.bytesConsumed) / (Double(reader.bytesConsumed) / elapsed)
                line += String(format: ", %.0f%%, ETA %.0f s   ", 100 * Double(reader.bytesConsumed) / Double(size), max(0, remaining))
            }
            return line
        }
    }

    struct Totals: CustomStringConvertible {
        var inserted = 0, updated = 0, duplicates = 0, rejected = 0, skipped = 0
        mutating func add(_ report: HealthIngestionReport) {
            inserted += report.inserted
            updated += report.updated
            duplicates += report.duplicates
            rejected += report.rejected
            skipped += report.skipped
        }
        var description: String {
            "inserted \(inserted), updated \(updated), duplicates \(duplicates), rejected \(rejected), skipped \(skipped)"
        }
    }

    /// The export's bytes: the file itself, or `unzip -p`'s output for a zip (streamed, never
    /// unpacked to disk or memory).
    final class ExportSource: @unchecked Sendable {
        let isZip: Bool
        private let handle: FileHandle
        private let process: Process?

        init(path: String) throws {
            let head = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 2) } ?? Data()
            isZip = head == Data([0x50, 0x4B])
            if isZip {
                let entry = try Self.exportEntry(in: path)
                let unzip = Process()
                unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
                unzip.arguments = ["-p", path, entry]
                let pipe = Pipe()
                unzip.standardOutput = pipe
                unzip.standardError = FileHandle.nullDevice
                do { try unzip.run() } catch { throw CLIError("cannot run unzip to read \(path) (install unzip, or pass the export.xml inside it)") }
                process = unzip
                handle = pipe.fileHandleForReading
            } else {
                guard let file = FileHandle(forReadingAtPath: path) else { throw CLIError("cannot read \(path)") }
                process = nil
                handle = file
            }
        }

        /// The export inside a zip: the XML file whose root element is `HealthData`, whatever the
        /// phone's language named it (`export.xml`, `exportar.xml`, `eksport.xml`, `vienti.xml`, …);
        /// the clinical document beside it (`export_cda.xml`, rooted in `ClinicalDocument`) and
        /// workout routes are not it. Each candidate's first 256 KiB are enough to see its root.
        static func exportEntry(in path: String) throws -> String {
            let names = String(decoding: try run(["-Z1", path], limit: 16 << 20), as: UTF8.self)
                .split(whereSeparator: \.isNewline).map(String.init)
                .filter { $0.lowercased().hasSuffix(".xml") && !$0.lowercased().hasSuffix("_cda.xml") }
            // The usual name first, so the common case reads one file's head.
            for name in names.sorted(by: { ($0.hasSuffix("/export.xml") || $0 == "export.xml" ? 0 : 1, $0) < ($1.hasSuffix("/export.xml") || $1 == "export.xml" ? 0 : 1, $1) }) {
                // unzip reads a name as a pattern: its wildcard characters are escaped.
                let pattern = name.reduce(into: "") { text, char in text += "[]*?\\".contains(char) ? "\\\(char)" : String(char) }
                if AppleHealthExportReader.rootElement(try run(["-p", path, pattern], limit: 256 << 10)) == "HealthData" { return pattern }
            }
            throw CLIError("the zip holds no Apple Health export (no XML file whose root element is HealthData)")
        }

        /// `unzip` with `arguments`: up to `limit` bytes of what it writes (it is stopped there).
        static func run(_ arguments: [String], limit: Int) throws -> Data {
            let unzip = Process()
            unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
            unzip.arguments = arguments
            let pipe = Pipe()
            unzip.standardOutput = pipe
            unzip.standardError = FileHandle.nullDevice
            do { try unzip.run() } catch { throw CLIError("cannot run unzip (install unzip, or pass the export's XML file itself)") }
            var data = Data()
            while data.count < limit, let chunk = try pipe.fileHandleForReading.read(upToCount: min(1 << 16, limit - data.count)), !chunk.isEmpty {
                data.append(chunk)
            }
            if unzip.isRunning { unzip.terminate() }
            try? pipe.fileHandleForReading.close()
            unzip.waitUntilExit()
            return data
        }

        func next() throws -> Data? {
            let chunk = try handle.read(upToCount: 1 << 20)
            guard let chunk, !chunk.isEmpty else {
                if let process {
                    process.waitUntilExit()
                    if process.terminationStatus != 0 { throw CLIError("unzip could not read the export from the file (status \(process.terminationStatus))") }
                }
                return nil
            }
            return chunk
        }
    }
}
