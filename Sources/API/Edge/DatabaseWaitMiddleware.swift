import EventStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// Bounds how long an API request waits for the database (`DATABASE_WAIT_MS`, default 2 s), and
/// how long it may run once a shutdown began (`ShutdownDeadline`).
/// The pool queues a request for a connection for as long as PostgreSQL is away (a `GET /me`
/// answered after 68 s); here, a request still running after half the limit is checked against a
/// probe of the database, and cut with a 503 and `Retry-After` when the probe gets no answer
/// within the other half. A slow request on a healthy database goes on; the probe is asked
/// again every half limit. Probes (`/healthz`, `/readyz`, `/metrics`) never wait here. It sits
/// before the body is read, so a stalled upload is answered at a shutdown too.
struct DatabaseWaitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Duration
    let probe: DatabaseProbe
    let shutdown: ShutdownDeadline

    /// Why the request was cut.
    enum Cut: Error { case databaseAway, shuttingDown }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/api/") else { return try await next(request, context) }
        let limit = self.limit, probe = self.probe, shutdown = self.shutdown
        return try await withoutActuallyEscaping(next) { next in
            // The child runs the rest of the chain and the group ends before this scope does.
            let handler = UncheckedSendableHandler(run: next)
            return try await withThrowingTaskGroup(of: Result<Response, Cut>.self) { group in
                group.addTask { .success(try await handler.run(request, context)) }
                group.addTask {
                    // Half the limit waiting, half for the probe: an outage is answered after about
                    // the limit.
                    while true {
                        try await Task.sleep(for: limit / 2)
                        if !(await probe.answers(within: limit / 2)) { return .failure(.databaseAway) }
                    }
                }
                group.addTask {
                    // A request still running when a shutdown's deadline comes is answered then.
                    try await shutdown.reached()
                    await shutdown.cancelStatementsOnce()
                    return .failure(.shuttingDown)
                }
                defer { group.cancelAll() }
                let first: Result<Response, Cut>?
                do {
                    first = try await group.next()
                } catch where shutdown.deadline.map({ ContinuousClock.now >= $0 }) ?? false {
                    // Its statement was cancelled for the shutdown: that is the answer it gets.
                    throw Problem.shuttingDown
                }
                switch first {
                case .success(let response)?:
                    return response
                case .failure(.shuttingDown)?:
                    throw Problem.shuttingDown
                case .failure(.databaseAway)?, nil:
                    throw Problem.databaseUnavailable("The database did not answer for \(limit.seconds) s; try again shortly.")
                }
            }
        }
    }
}

/// The rest of a middleware chain, run in a child task of the group that waits for it (see
/// `DatabaseWaitMiddleware`): Hummingbird does not mark it Sendable, and it never outlives the call.
private struct UncheckedSendableHandler<Context: RequestContext>: @unchecked Sendable {
    let run: (Request, Context) async throws -> Response
}

/// Whether the database answers `SELECT 1` in time. One probe serves every request that asks
/// while it runs, and its answer is kept for a second.
actor DatabaseProbe {
    let client: PostgresClient
    let logger: Logger
    var last: (answered: Bool, at: ContinuousClock.Instant)?
    var running: Task<Bool, Never>?

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func answers(within limit: Duration) async -> Bool {
        if let last, ContinuousClock.now - last.at < .seconds(1) { return last.answered }
        if let running { return await running.value }
        let client = self.client, logger = self.logger
        // Not a child of the asking request: a request that ends must not cancel the answer others wait for.
        let task = Task<Bool, Never> {
            do {
                try await withTimeout(limit) { try await PostgresEventStore.ping(client, logger: logger) }
                return true
            } catch {
                return false
            }
        }
        running = task
        let answered = await task.value
        last = (answered, ContinuousClock.now)
        running = nil
        return answered
    }
}
