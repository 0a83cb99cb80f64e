import Hummingbird
import ServiceLifecycle
import Synchronization

/// When a shutdown began, and by when a request still running must be answered. After SIGTERM
/// the server lets requests in flight finish for `SHUTDOWN_GRACE_SECONDS`; a request still
/// running near the end of it (a stalled upload, one waiting on the database) is answered 503
/// `shutting-down` with `Retry-After` a second before the grace ends, while its connection is
/// still open (issue 24: they saw the connection closed, not the answer the README promised).
///
/// A request waiting on a database statement (a lock held elsewhere) cannot be cancelled from
/// Swift: PostgresNIO does not stop a statement when its task is cancelled. So at the deadline
/// the statements of this server's own pool are cancelled in PostgreSQL (`cancelStatements`,
/// once), each ends with an error, and its request is answered.
public final class ShutdownDeadline: Sendable {
    private struct State {
        var answerBy: ContinuousClock.Instant?
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var lastWaiter: UInt64 = 0
    }
    private let state = Mutex(State())
    private let statementsCancelled = Mutex(false)
    let grace: Duration
    let cancelStatements: @Sendable () async -> Void

    public init(grace: Duration, cancelStatements: @escaping @Sendable () async -> Void = {}) {
        self.grace = grace
        self.cancelStatements = cancelStatements
    }

    /// At the deadline, the first request to reach it cancels the pool's statements.
    func cancelStatementsOnce() async {
        let first = statementsCancelled.withLock { done in
            defer { done = true }
            return !done
        }
        if first { await cancelStatements() }
    }

    /// The shutdown began now.
    public func begin() {
        // A second to write the answers before everything is cancelled; half the grace when it is short.
        let margin = min(.seconds(1), grace / 2)
        let waiters = state.withLock { state in
            state.answerBy = state.answerBy ?? ContinuousClock.now + (grace - margin)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when a shutdown begins (at once if one has); throws when cancelled first. Long
    /// answers (the event stream) end then, so the server's own wait for them is short.
    func began() async throws {
        while deadline == nil {
            try Task.checkCancellation()
            let id = state.withLock { state in
                state.lastWaiter += 1
                return state.lastWaiter
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state in
                        if state.answerBy != nil || Task.isCancelled { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Nil until a shutdown began.
    var deadline: ContinuousClock.Instant? { state.withLock { $0.answerBy } }

    /// Returns at the deadline of a shutdown (never while none began); throws when cancelled first.
    func reached() async throws {
        try await began()
        if let deadline { try await Task.sleep(until: deadline) }
    }
}

/// The HTTP application as a service of `lifelog serve`, telling the shutdown deadline when a
/// graceful shutdown begins (before the application's own handler stops accepting connections).
public struct APIService<App: ApplicationProtocol>: Service {
    let app: App
    let shutdown: ShutdownDeadline

    public init(app: App, shutdown: ShutdownDeadline) {
        self.app = app
        self.shutdown = shutdown
    }

    public func run() async throws {
        let shutdown = self.shutdown
        try await withGracefulShutdownHandler {
            try await app.run()
        } onGracefulShutdown: {
            shutdown.begin()
        }
    }
}
