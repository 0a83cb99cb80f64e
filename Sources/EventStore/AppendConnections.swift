import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Connections of their own for appends, opened beside the pool and kept.
///
/// PostgresNIO 1.33.2's pool sets an idle timer (a sleeping child task) for every connection
/// handed back and cancels it at the next lease: about 79 µs of a sequential append's ~560 µs
/// on the benchmark machine (bench/README, "Where a sequential append's time goes"). Only
/// connections under the pool's minimum skip it, and a minimum is what crashes that pool after
/// PostgreSQL restarts (issue 24), so the pool keeps none. A connection of ours has no timer.
///
/// An append takes a free one (a lock, no await); when none is free it leases from the pool as
/// before, at once, and asks for one more to be opened (up to `capacity`), so an append never
/// waits for these and the pool keeps its whole size. One opens at a time, in the background;
/// while PostgreSQL is away each attempt fails, and none is asked for until a second later. A
/// connection PostgreSQL closed is dropped when next seen, one on which a statement failed with a
/// connection error, a cancel or a time limit is closed (`leavesSessionUsable`), and one unused
/// for `idleSweeps` one-second sweeps (or as long as the pool's keep-alive interval, since these
/// send none) is closed. Without the service running (the CLI, most tests) appends lease from the pool.
public final class AppendConnections: Service, Sendable {
    struct Kept {
        let connection: PostgresConnection
        var unusedSweeps = 0
    }

    struct State {
        /// Free connections, the most recently used last (taken first: its socket is warm).
        var free: [Kept] = []
        /// Opened or being opened, not yet closed: free and in use.
        var open = 0
        /// Being opened: while one is, appends that find none free ask for no other (a run of
        /// sequential appends would otherwise open `capacity` before the first is ready).
        var opening = false
        var running = false
        var stopped = false
    }

    let configuration: PostgresConnection.Configuration
    let capacity: Int
    let idleSweeps: Int
    let logger: Logger
    private let state = Mutex(State())
    private let nextID = Atomic<Int>(0)
    private let served = Atomic<Int>(0)
    private let requests: AsyncStream<Void>
    private let request: AsyncStream<Void>.Continuation

    /// `configuration`: as the pool's connections (`DatabaseURL.appendConnectionConfiguration`).
    /// `keepAlive`: the pool's keep-alive interval, if any (a NAT or proxy drops connections idle
    /// longer): these send none, so one idle that long is closed instead.
    public init(configuration: PostgresConnection.Configuration, capacity: Int, idleSweeps: Int = 60, keepAlive: Duration? = nil,
                logger: Logger) {
        self.configuration = configuration
        self.capacity = max(0, capacity)
        self.idleSweeps = max(1, min(idleSweeps, keepAlive.map { Int($0.components.seconds) } ?? idleSweeps))
        self.logger = logger
        (requests, request) = AsyncStream.makeStream(of: Void.self)
    }

    /// Runs `body` on a free connection of ours, else on one leased from `client`'s pool.
    /// `body` is one transaction or one statement (an append): when a statement of it finds the
    /// connection closed before it is sent, nothing of `body` was committed, and it runs again
    /// on the pool.
    public func withConnection<Result>(
        orFrom client: PostgresClient, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        guard let connection = take() else { return try await client.withConnection(body) }
        do {
            let result = try await body(connection)
            await putBack(connection, reusable: true)
            served.add(1, ordering: .relaxed)
            return result
        } catch {
            await putBack(connection, reusable: Self.leavesSessionUsable(error))
            // PostgreSQL ended it before anything of `body` was sent, or mid-transaction (which
            // it then rolled back): nothing of `body` is stored, and it may run again.
            guard PostgresErrors.unwrap(error) is ConnectionClosedBeforeStatement else { throw error }
            return try await client.withConnection(body)
        }
    }

    /// Whether a connection on which `error` was thrown may serve the next append. PostgreSQL
    /// answered with an error (a conflict, a replay, a constraint): yes, the transaction was
    /// rolled back. Lifelog's own code threw: yes, likewise. The connection failed, a statement
    /// was cancelled or timed out (PostgresNIO 1.33.2 keeps a cancelled first preparation failed
    /// on that connection for good), or the session is in a transaction it should not be: no.
    static func leavesSessionUsable(_ error: any Error) -> Bool {
        let error = PostgresErrors.unwrap(error)
        if error is ConnectionClosedBeforeStatement { return false }
        guard let psql = error as? PSQLError else { return true }
        guard let state = psql.serverInfo?[.sqlState] else { return false }
        return !(state.hasPrefix("08") || state.hasPrefix("57") || state.hasPrefix("25"))
    }

    /// How many are open now (free or in use).
    public var openCount: Int { state.withLock { $0.open } }

    /// How many are open and free: the next append takes one of these (a session PostgreSQL
    /// lists may still be being set up, and is not one yet).
    public var freeCount: Int { state.withLock { $0.free.count } }

    /// How many statements' work ran on one of these since the start (the rest leased from the pool).
    public var servedCount: Int { served.load(ordering: .relaxed) }

    public func run() async throws {
        state.withLock { $0.running = true }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(1))
                        await self.sweep()
                    }
                }
                // Ends when the task is cancelled (graceful shutdown).
                for await _ in self.requests { await self.openOne() }
                group.cancelAll()
            }
        }
        await stop()
    }

    // MARK: Taking and putting back

    func take() -> PostgresConnection? {
        let (connection, wanted) = state.withLock { state -> (PostgresConnection?, Bool) in
            guard state.running, !state.stopped else { return (nil, false) }
            while let kept = state.free.popLast() {
                // PostgreSQL closed it (a restart): its channel is gone, nothing to close.
                guard !kept.connection.isClosed else {
                    state.open -= 1
                    continue
                }
                return (kept.connection, false)
            }
            guard state.open < capacity, !state.opening else { return (nil, false) }
            state.open += 1
            state.opening = true
            return (nil, true)
        }
        if wanted { request.yield() }
        return connection
    }

    func putBack(_ connection: PostgresConnection, reusable: Bool) async {
        let keep = state.withLock { state -> Bool in
            guard reusable, !state.stopped, !connection.isClosed else {
                state.open -= 1
                return false
            }
            state.free.append(Kept(connection: connection))
            return true
        }
        // Stopped while in use, or not to be used again.
        if !keep { await Self.close([connection]) }
    }

    // MARK: Opening and closing

    /// One connection for the next append that finds none free. `take` has counted it already.
    func openOne() async {
        let id = nextID.add(1, ordering: .relaxed).newValue
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
            let kept = state.withLock { state -> Bool in
                state.opening = false
                guard !state.stopped else {
                    state.open -= 1
                    return false
                }
                state.free.append(Kept(connection: connection))
                return true
            }
            if !kept { await Self.close([connection]) }
        } catch {
            logger.debug("could not open an append connection; appends use the pool", metadata: ["error": "\(String(reflecting: error))"])
            // PostgreSQL is away or full: the pool answers meanwhile; try again no sooner than in a second.
            try? await Task.sleep(for: .seconds(1))
            state.withLock { state in
                state.open -= 1
                state.opening = false
            }
        }
    }

    /// Once a second: free connections PostgreSQL closed, or unused for `idleSweeps` sweeps, go.
    func sweep() async {
        let leaving = state.withLock { state -> [PostgresConnection] in
            var leaving: [PostgresConnection] = []
            state.free = state.free.compactMap { kept in
                var kept = kept
                kept.unusedSweeps += 1
                guard kept.connection.isClosed || kept.unusedSweeps >= idleSweeps else { return kept }
                leaving.append(kept.connection)
                return nil
            }
            state.open -= leaving.count
            return leaving
        }
        await Self.close(leaving)
    }

    /// No more are handed out; the free ones close now, those in use when put back.
    func stop() async {
        let leaving = state.withLock { state -> [PostgresConnection] in
            state.stopped = true
            let leaving = state.free.map(\.connection)
            state.free = []
            state.open -= leaving.count
            // Asked for after the opening loop ended: it will never be opened.
            if state.opening {
                state.open -= 1
                state.opening = false
            }
            return leaving
        }
        request.finish()
        await Self.close(leaving)
    }

    /// Closes connections no longer counted (PostgresNIO asserts one is closed before it goes).
    static func close(_ connections: [PostgresConnection]) async {
        for connection in connections where !connection.isClosed { try? await connection.close() }
    }
}
