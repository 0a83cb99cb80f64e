/// Where an imported item came from: a line of the file (of one file of an archive, for Loop's
/// folders of CSV files).
public struct ImportPlace: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String?
    public var line: Int

    public init(file: String? = nil, line: Int) {
        self.file = file
        self.line = line
    }

    /// `line 12`, or `001 Run/Checkmarks.csv line 12`.
    public var description: String { (file.map { "\($0) " } ?? "") + "line \(line)" }

    public static func < (lhs: ImportPlace, rhs: ImportPlace) -> Bool {
        (lhs.file ?? "", lhs.line) < (rhs.file ?? "", rhs.line)
    }
}

/// What became of one item of an import.
public enum ImportOutcome: Sendable, Equatable {
    /// Stored now (or, in a dry run, would be).
    case imported
    /// Already there: an earlier import of the same item, or the same fact entered by hand.
    case duplicate
    /// Not carried, on purpose, for this reason (the same for every item of its kind).
    case skipped(String)
    /// Could not be imported, for this reason; the other items go in all the same.
    case failed(String)
}

/// An item that could not be imported, said as `line N: reason`.
public struct ImportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var place: ImportPlace
    public var reason: String
    public var description: String { "\(place): \(reason)" }
}

/// The counts an import answers with (every importer, the API and the command alike): items
/// read, imported, duplicates, skipped with their reasons, failed with theirs. `read` is always
/// the sum of the other four.
public struct ImportReport: Sendable, Equatable {
    /// Failures listed one by one; past this many, only counted.
    public static let failuresListed = 1_000

    public struct Skip: Sendable, Equatable {
        public var reason: String
        public var count: Int
    }

    public var dryRun: Bool
    public private(set) var read = 0
    public private(set) var imported = 0
    public private(set) var duplicates = 0
    public private(set) var skipped = 0
    public private(set) var failed = 0
    /// Each reason for skipping, in the order first met, with how many items it covered.
    public private(set) var skips: [Skip] = []
    /// The first `failuresListed` failures, in file order once `finish` has sorted them.
    public private(set) var failures: [ImportFailure] = []
    /// What the reader of the report should know that is no single item's fate (a schedule
    /// that has no equal here, a file that ends before its end line).
    public private(set) var notes: [String] = []

    public init(dryRun: Bool) { self.dryRun = dryRun }

    public mutating func record(_ outcome: ImportOutcome, at place: ImportPlace) {
        read += 1
        switch outcome {
        case .imported: imported += 1
        case .duplicate: duplicates += 1
        case .skipped(let reason):
            skipped += 1
            if let index = skips.firstIndex(where: { $0.reason == reason }) { skips[index].count += 1 } else { skips.append(Skip(reason: reason, count: 1)) }
        case .failed(let reason):
            failed += 1
            if failures.count < Self.failuresListed { failures.append(ImportFailure(place: place, reason: reason)) }
        }
    }

    public mutating func note(_ text: String) {
        if !notes.contains(text) { notes.append(text) }
    }

    /// Failures in file order (items run side by side finish out of order).
    public mutating func sortFailures() {
        failures.sort { $0.place < $1.place }
    }

    /// One line: `read 120, imported 100, duplicates 10, skipped 8, failed 2`.
    public var summary: String {
        "\(dryRun ? "dry run, nothing stored: " : "")read \(read), \(dryRun ? "would import" : "imported") \(imported), duplicates \(duplicates), skipped \(skipped), failed \(failed)"
    }

    /// The summary, then each reason for skipping, each failure and each note on a line of its own.
    public var description: String {
        var lines = [summary]
        lines += skips.map { "skipped \($0.count): \($0.reason)" }
        lines += failures.map(\.description)
        if failed > failures.count { lines.append("… and \(failed - failures.count) more failures") }
        lines += notes.map { "note: \($0)" }
        return lines.joined(separator: "\n")
    }
}
