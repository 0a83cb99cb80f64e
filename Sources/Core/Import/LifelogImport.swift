import Domain
import Foundation

/// One import of a lifelog export into an account, fed lines as they are read (a file a MiB at a
/// time, a request's body). Lines are read one by one; their commands run a batch at a time: a
/// run of lines of one kind (the export lists each kind together, in the order their references
/// need: habits before their logs, categories before transactions, goals before their plans and
/// movements), each stream in order, streams side by side; health records 5,000 to an ingestion.
/// Archiving waits for the end (an archived habit takes no logs), and so does removing a repeat
/// that a completion creates but the file does not have.
public struct LifelogImport: Sendable {
    let service: ImportService
    let owner: UUID
    public private(set) var report: ImportReport
    /// Lines seen, blank ones included: what `line N` counts.
    public private(set) var lineNumber = 0
    var source: String?
    var endLines: Int?
    var resources = 0
    var batch: [ImportItem] = []
    var batchKind = ""
    var healthBatch: [(ImportPlace, LifelogImportLine)] = []
    /// What runs once every line has: archiving, removing repeats the file does not have.
    var deferred: [ImportItem] = []
    /// Facts of earlier lines that later ones refer to.
    var memory = LifelogImportMemory()

    static let batchSize = 2_000
    static let healthBatchSize = 5_000

    init(service: ImportService, owner: UUID, dryRun: Bool) {
        self.service = service
        self.owner = owner
        report = ImportReport(dryRun: dryRun)
    }

    /// Reads `lines` (each without its line end) and imports what they complete. Throws
    /// `ImportFileError` when the first line is not a lifelog export's header.
    public mutating func feed(_ lines: [String]) async throws {
        for text in lines {
            lineNumber += 1
            if text.allSatisfy(\.isWhitespace) { continue }
            let place = ImportPlace(line: lineNumber)
            let line: LifelogImportLine
            do {
                line = try LifelogImportLine.read(text, number: lineNumber)
            } catch {
                guard source != nil else { throw ImportFileError("line \(lineNumber): not a lifelog export (\(error.reason))") }
                resources += 1
                count(.failed(error.reason), at: place)
                continue
            }
            try await take(line, at: place, raw: text)
        }
    }

    /// Imports what is left and answers the report.
    public mutating func finish() async throws -> ImportReport {
        try await flush()
        try await flushHealth()
        if source == nil { throw ImportFileError("the file is empty: a lifelog export starts with its header line") }
        if let endLines, endLines != resources {
            report.note("the end line counts \(endLines) lines, the file has \(resources): lines are missing or were added")
        } else if endLines == nil {
            report.note("the file ends without its end line: it may have been cut short")
        }
        deferred += memory.repeatsNotInFile(service: service, owner: owner, prefix: "lifelog:\(source ?? ""):", removeRepeats: endLines != nil)
        if !report.dryRun { try await service.settle(owner, deferred, notesInto: &report) }
        report.sortFailures()
        return report
    }

    mutating func count(_ outcome: ImportOutcome, at place: ImportPlace) {
        report.record(outcome, at: place)
    }

    mutating func take(_ line: LifelogImportLine, at place: ImportPlace, raw: String) async throws {
        if case .header = line {
            guard source == nil else { count(.failed("a second header"), at: place); return }
            source = Self.sourceUser(raw) ?? "unknown"
            return
        }
        guard let source else { throw ImportFileError("line \(place.line): not a lifelog export (its first line names no format)") }
        if case .end(let lines) = line {
            endLines = lines
            return
        }
        resources += 1
        if line.isHealthRecord {
            try await flush()
            healthBatch.append((place, line))
            if healthBatch.count >= Self.healthBatchSize { try await flushHealth() }
            return
        }
        try await flushHealth()
        guard let (lane, kind, steps) = items(line, source: source) else {
            if case .notCarried(let reason) = line { count(.skipped(reason), at: place) }
            return
        }
        if kind != batchKind || batch.count >= Self.batchSize { try await flush() }
        batchKind = kind
        batch.append(ImportItem(place: place, lane: lane, steps: steps))
    }

    mutating func flush() async throws {
        guard !batch.isEmpty else { return }
        let items = batch
        batch = []
        try await service.run(owner, items, dryRun: report.dryRun, into: &report)
    }

    mutating func flushHealth() async throws {
        guard !healthBatch.isEmpty else { return }
        let records = healthBatch
        healthBatch = []
        try await service.ingest(owner, records, dryRun: report.dryRun, into: &report)
    }

    /// The exporting account's id, from the header: part of every item's key, so that two
    /// accounts' exports in one account are two sets of items.
    static func sourceUser(_ header: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any] else { return nil }
        return (object["user_id"] as? String).flatMap(UUID.init(uuidString:))?.uuidString.lowercased()
    }
}

extension ImportService {
    /// A new import of a lifelog export into `owner`'s account; feed it the file's lines.
    public func lifelog(into owner: UUID, dryRun: Bool) -> LifelogImport {
        LifelogImport(service: self, owner: owner, dryRun: dryRun)
    }
}
