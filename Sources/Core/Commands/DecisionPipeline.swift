import Synchronization

/// Per stream, within this process: the commands decided but not yet known to be stored, and
/// the last few stored, so that the next command can be decided on top of them while the one
/// ahead is still being appended (`CommandPath.decidePipelined`). A state read at a version one
/// of them was decided for is brought up to date by folding their events, instead of being read
/// again once they are stored.
///
/// The entries of a stream follow one another (each is appended at the version the one before
/// leaves). When one is not stored as decided, it and every entry after it leave the list, and
/// those after it are doomed: they were decided on events that never reached the log, so they
/// are decided again, on a fresh read, in their turn. A stream's list lives only while one of
/// its commands is active (`active`), so an idle stream holds nothing.
final class DecisionPipeline: Sendable {
    struct Entry: Sendable {
        let id: UInt64
        let expected: Int64
        let leaves: Int64
        let decided: any Sendable
        var stored: Bool
    }

    /// What a read at a version needs folded in, and where the next command is appended.
    struct Basis: Sendable {
        /// The decided events of the entries the read did not see, each entry's as one array, in order.
        let pending: [any Sendable]
        let expected: Int64
        /// The stream's failures when this was taken: an entry pushed on it after one of them
        /// failed would stand on events that are not stored.
        let failures: UInt64
    }

    private struct Stream {
        var entries: [Entry] = []
        var failures: UInt64 = 0
        var active = 0
    }

    private struct State {
        var streams: [String: Stream] = [:]
        var doomed: Set<UInt64> = []
        var nextId: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Stored entries kept for reads made before they were stored: as many as a client has
    /// requests in flight, about (a phone sends one at a time, the benchmark four).
    static let history = 4

    /// Runs `body` with `stream`'s list kept; the last to leave drops it.
    func active<T>(_ stream: String, _ body: () async throws -> T) async throws -> T {
        state.withLock { $0.streams[stream, default: Stream()].active += 1 }
        defer {
            state.withLock { state in
                state.streams[stream]?.active -= 1
                if state.streams[stream]?.active ?? 0 <= 0 { state.streams[stream] = nil }
            }
        }
        return try await body()
    }

    /// What a state read at `version` needs folded in to stand where the next command is
    /// appended; nil when the read is not one the entries continue from: read again (`fresh`
    /// false), or decide in the appending turn. A fresh read past every entry, all of them
    /// stored, is past another writer's append: it starts the list again.
    func basis(_ stream: String, readAt version: Int64, fresh: Bool) -> Basis? {
        state.withLock { state in
            let record = state.streams[stream] ?? Stream()
            guard let last = record.entries.last, version != last.leaves else {
                return Basis(pending: [], expected: version, failures: record.failures)
            }
            if let first = record.entries.firstIndex(where: { $0.expected == version }) {
                return Basis(pending: record.entries[first...].map(\.decided), expected: last.leaves, failures: record.failures)
            }
            guard fresh, record.entries.allSatisfy(\.stored) else { return nil }
            return Basis(pending: [], expected: version, failures: record.failures)
        }
    }

    /// Records a command decided on `basis`; nil when that basis no longer holds (an entry it
    /// stood on failed meanwhile), and the command must be decided again in its turn.
    func push(_ stream: String, on basis: Basis, leaves: Int64, decided: any Sendable) -> UInt64? {
        state.withLock { state in
            guard var record = state.streams[stream], record.failures == basis.failures else { return nil }
            if let last = record.entries.last, last.leaves != basis.expected {
                // Only stored entries can be behind a fresh read (another writer appended after
                // them); one still being appended would be ahead of this command's version.
                guard record.entries.allSatisfy(\.stored) else { return nil }
                record.entries = []
            }
            state.nextId += 1
            record.entries.append(Entry(id: state.nextId, expected: basis.expected, leaves: leaves, decided: decided, stored: false))
            state.streams[stream] = record
            return state.nextId
        }
    }

    /// The entry was appended as decided.
    func stored(_ stream: String, _ id: UInt64) {
        state.withLock { state in
            guard var record = state.streams[stream], let index = record.entries.firstIndex(where: { $0.id == id }) else { return }
            record.entries[index].stored = true
            while record.entries.count > Self.history, record.entries[0].stored { record.entries.removeFirst() }
            state.streams[stream] = record
        }
    }

    /// The entry was not appended as decided (or its command gave up): it and the entries after
    /// it leave; those after it are doomed.
    func failed(_ stream: String, _ id: UInt64) {
        state.withLock { state in
            state.doomed.remove(id)
            guard var record = state.streams[stream], let index = record.entries.firstIndex(where: { $0.id == id }) else { return }
            for entry in record.entries[(index + 1)...] { state.doomed.insert(entry.id) }
            record.entries.removeSubrange(index...)
            record.failures += 1
            state.streams[stream] = record
        }
    }

    /// How many of the stream's entries have failed while it was active.
    func failures(_ stream: String) -> UInt64? {
        state.withLock { $0.streams[stream]?.failures }
    }

    /// Whether the entry stood on one that failed (asked once, in its turn).
    func isDoomed(_ id: UInt64) -> Bool {
        state.withLock { $0.doomed.remove(id) != nil }
    }
}
