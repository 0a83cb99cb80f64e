import Domain
import Foundation
import Projections

/// A user's whole export as NDJSON (issue 29; the format is in the README, "Export"): a first
/// line naming the format and its version, a line per resource (`ExportStore`), and a last
/// line `{"type":"end","lines":N}`, so a reader can tell a complete file from a cut one.
/// The same for `GET /api/v1/export` and `lifelog export`.
public struct ExportService: Sendable {
    public static let format = "lifelog-export"
    /// Raised when a line's meaning changes; a reader of version N reads every earlier one.
    public static let version = 1

    let store: ExportStore
    let clock: any WallClock

    public init(store: ExportStore, clock: any WallClock) {
        self.store = store
        self.clock = clock
    }

    /// Writes the export a chunk of lines at a time (each chunk ends with a line end); returns
    /// how many resource lines it wrote.
    @discardableResult
    public func export(_ owner: UUID, _ write: (String) async throws -> Void) async throws -> Int {
        let exportedAt = clock.now().formatted(.iso8601)
        try await write(#"{"format":"\#(Self.format)","version":\#(Self.version),"user_id":"\#(owner.uuidString.lowercased())","exported_at":"\#(exportedAt)"}"# + "\n")
        var count = 0
        try await store.lines(of: owner) { lines in
            count += lines.count
            try await write(lines.joined(separator: "\n") + "\n")
        }
        try await write(#"{"type":"end","lines":\#(count)}"# + "\n")
        return count
    }
}
