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
    private let answerBy = Mutex<ContinuousClock.Instant?>(nil)
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
        answerBy.withLock { $0 = $0 ?? ContinuousClock.now + (grace - margin) }
    }

    /// Nil until a shutdown began.
    var deadline: ContinuousClock.Instant? { answerBy.withLock { $0 } }
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
