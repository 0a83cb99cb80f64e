import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Marks that appends made through one client have committed since readers were last woken.
/// The event store rings it after every commit that stored events; `ReaderWaker` turns the rings
/// into NOTIFYs. Ringing is a flag under a lock, so it costs an append nothing measurable.
public final class CommitSignal: Sendable {
    private struct State {
        var pending = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var lastWaiter: UInt64 = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// Records that events have committed and wakes whoever waits.
    public func ring() {
        let waiters = state.withLock { state in
            state.pending = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// True, once, when something was rung since the last take.
    public func takeIfRung() -> Bool {
        state.withLock { state in
            defer { state.pending = false }
            return state.pending
        }
    }

    /// Waits until something is rung, then takes it. False when the task is cancelled first.
    public func next() async -> Bool {
        while !takeIfRung() {
            if Task.isCancelled { return false }
            let id = state.withLock { state in
                state.lastWaiter += 1
                return state.lastWaiter
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state in
                        // Cancelled before we were registered: the handler found nothing to resume.
                        if state.pending || Task.isCancelled { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
        return true
    }

    // Stores built on one client (the API's services, the account service, the CLI's) share its
    // signal, and the ReaderWaker on that client follows it. Keyed by the client, not the
    // process: NOTIFY is per database, and tests run many databases in one process.
    private struct Entry {
        weak var client: PostgresClient?
        let signal: CommitSignal
    }
    private static let registry = Mutex<[Entry]>([])

    /// The signal of the appends made through `client`.
    public static func of(_ client: PostgresClient) -> CommitSignal {
        registry.withLock { entries in
            entries.removeAll { $0.client == nil }
            if let entry = entries.first(where: { $0.client === client }) { return entry.signal }
            let signal = CommitSignal()
            entries.append(Entry(client: client, signal: signal))
            return signal
        }
    }
}

/// Wakes the async readers of every instance after appends through `client` commit (DESIGN §3):
/// one `NOTIFY lifelog_events` per burst of commits, sent after them in a transaction of its own.
///
/// A NOTIFY inside each append's transaction (the trigger that migration 0010 drops) makes every
/// committing append take PostgreSQL's global notify lock and hold it through its WAL flush, so
/// appends of different streams committed one at a time and group commit was lost. A NOTIFY on its
/// own writes no WAL, so it holds that lock for microseconds. The first commit after a quiet spell
/// is announced at once; commits during the next `window` share one NOTIFY. Readers still poll,
/// so a NOTIFY lost with a connection only delays them.
public struct ReaderWaker: Service {
    public static let channel = "lifelog_events"

    let client: PostgresClient
    let signal: CommitSignal
    let window: Duration
    let logger: Logger

    public init(client: PostgresClient, window: Duration = .milliseconds(2), logger: Logger) {
        self.client = client
        self.signal = CommitSignal.of(client)
        self.window = window
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await follow() }
    }

    func follow() async {
        var failures = 0
        while await signal.next() {
            do {
                try await Self.notify(client, logger: logger)
                failures = 0
                try await Task.sleep(for: window)
            } catch {
                if Task.isCancelled { return }
                signal.ring()  // not announced yet: try again after a pause
                failures += 1
                logger.warning("could not wake readers; they poll meanwhile", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: .milliseconds(min(5_000, 50 << min(failures, 6))))
            }
        }
    }

    /// Sends one wake-up to every listening reader.
    public static func notify(_ client: PostgresClient, logger: Logger) async throws {
        try await client.run("SELECT pg_notify(\(channel), '')", logger: logger)
    }
}
