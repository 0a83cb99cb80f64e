import Logging
import NIOCore
import PostgresNIO
import Synchronization

// Every statement lifelog sends goes through here.
//
// PostgresNIO 1.33.2 writes a statement to its channel without a promise for the write. When
// PostgreSQL has closed the connection, NIO tears the channel's pipeline down a moment after
// the close; a statement written from another thread after that is dropped, its promise never
// completes, and whoever awaits it waits forever (issue 24: requests in flight when PostgreSQL
// stopped were never answered, retries queued behind them, async projectors stopped for good;
// `PostgresOutageTests` reproduces it with PostgresNIO alone). The pipeline is torn down on the
// connection's event loop, so a statement whose write starts on that loop, after a check that
// the channel is still open, reaches PostgresNIO's handler: open, the statement runs; closing,
// the handler fails it. So each statement starts on its connection's loop (a task executor
// preference for the few instructions that check and write), and its rows are read into memory
// before the caller sees them (no caller here streams a result it cannot hold). A prepared
// statement's rows are read on the loop too, and a small append runs whole there (`onItsLoop`):
// work measured in microseconds, where each crossing of threads cost more than the work.
//
// They are read with PostgresNIO's callback path, not its row sequence. When PostgreSQL ends a
// connection mid-result (a restart, `pg_terminate_backend`, `DROP DATABASE … WITH (FORCE)`), NIO
// drains the socket without waiting for the reader; a row sequence whose reader had not yet asked
// for more then trips a precondition in `RowStreamStateMachine.channelReadComplete` and the whole
// process stops (`ConnectionEndedMidResultTests`). The callback path asks for more rows on the
// event loop as each read arrives, so it is never waiting for its reader and the statement fails
// as it should. PostgresNIO's prepared statements read through the row sequence; only the append
// uses one, and only while its answer (about 60 bytes an event) is small enough to arrive in one
// flush of PostgreSQL's 8 KB send buffer, within one drain of the socket: a larger batch goes
// through `unprepared` (`PostgresEventStore.preparedAnswerLimit`).
//
// A task cancelled while it waits for a statement waits for the statement's answer (bounded by
// `statement_timeout`): the callback read is not cancelled with its caller.

/// What a statement answered: its rows, read. `decode` works as on PostgresNIO's row sequence.
public struct QueryRows: AsyncSequence, Sendable {
    public typealias Element = PostgresRow
    public let rows: [PostgresRow]

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[PostgresRow]>
        public mutating func next() async throws -> PostgresRow? { base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: rows.makeIterator()) }
}

/// A row's cells read in order, each as its own type. For wide rows read by the thousand (a
/// re-sent health batch reads back 5,000 rows of 18 columns): PostgresNIO's tuple decoding
/// copies the growing tuple at each column, and that was a seventh of a re-send's CPU.
/// `end()` checks that every column was read, as the tuple's arity did.
public struct RowCells {
    @usableFromInline var cells: PostgresRow.Iterator
    @usableFromInline var read = 0

    @inlinable
    public init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The reader reads more or fewer columns than the row has: a mistake in the reader, not in the data.
    public struct ColumnCountMismatch: Error, Sendable {
        public let read: Int
        @inlinable public init(read: Int) { self.read = read }
    }

    /// Inlinable, so that each caller's types are decoded by code made for them.
    @inlinable
    public mutating func next<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T {
        guard let cell = cells.next() else { throw ColumnCountMismatch(read: read) }
        read += 1
        return try cell.decode(T.self, context: .default)
    }

    /// Throws when the row has columns left unread.
    @inlinable
    public mutating func end() throws {
        guard cells.next() == nil else { throw ColumnCountMismatch(read: read) }
    }
}

/// A statement's rows as the event loop hands them over.
final class RowCollector: Sendable {
    let rows = Mutex<[PostgresRow]>([])
}

/// PostgreSQL closed this connection before the statement was sent; nothing of it ran.
public struct ConnectionClosedBeforeStatement: Error, Sendable {}

/// Runs Swift concurrency jobs on one NIO event loop: the loop of a connection.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    private init(_ loop: any EventLoop) { self.loop = loop }

    /// One executor per loop, so that a statement inside `onItsLoop` prefers the executor its
    /// task already runs on and does not hop again. The cache holds the process's loops (NIO's
    /// singleton group: one per core), which live as long as the process.
    private static let byLoop = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])

    static func of(_ loop: any EventLoop) -> EventLoopTaskExecutor {
        byLoop.withLock { executors in
            if let executor = executors[ObjectIdentifier(loop)] { return executor }
            let executor = EventLoopTaskExecutor(loop)
            executors[ObjectIdentifier(loop)] = executor
            return executor
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension PostgresConnection {
    /// Sends `query` from this connection's event loop (see above) and reads its rows.
    public func rows(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> QueryRows {
        // Rows handed over one by one on the event loop (PostgresNIO's collect-all `PostgresQueryResult`
        // copies its whole array at each socket read: quadratic in a long answer).
        let collected = RowCollector()
        let done: EventLoopFuture<PostgresQueryMetadata> = try await onItsLoop {
            guard !isClosed else { throw ConnectionClosedBeforeStatement() }
            return self.query(query, logger: logger, file: file, line: line) { row in collected.rows.withLock { $0.append(row) } }
        }
        _ = try await done.get()
        return QueryRows(rows: collected.rows.withLock { $0 })
    }

    /// Runs `body` with this connection's event loop as its executor, so that each statement's
    /// answer resumes it on the thread that read the answer instead of crossing to another
    /// (eight writers on two cores spent a fifth of the benchmark process in the kernel's
    /// task switches). Only for short work: while `body` computes, no connection on that loop
    /// is read (`EventLoopExecutor`).
    public func onItsLoop<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async throws -> Result {
        try await withTaskExecutorPreference(EventLoopTaskExecutor.of(eventLoop), isolation: isolation, operation: body)
    }

    /// A prepared statement, sent the same way; its rows decoded.
    public func prepared<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        // Read on the loop too: each row the sequence hands over would otherwise cross threads.
        try await onItsLoop {
            guard !isClosed else { throw ConnectionClosedBeforeStatement() }
            var rows: [Statement.Row] = []
            for try await row in try await self.execute(statement, logger: logger, file: file, line: line) { rows.append(row) }
            return rows
        }
    }

    /// A prepared statement's text and bindings sent unprepared, its rows read as `rows` reads
    /// them: for answers too long to arrive in one read (see above).
    public func unprepared<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> [Statement.Row] {
        let query = PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings())
        return try await rows(query, logger: logger, file: file, line: line).rows.map { try statement.decodeRow($0) }
    }

    /// A statement run for its effect. Its rows are read: a server error can come after the row
    /// description, and a statement whose rows are not read never shows it.
    public func run(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws {
        _ = try await rows(query, logger: logger, file: file, line: line)
    }
}

extension PostgresClient {
    /// `PostgresConnection.rows` on a connection of the pool.
    public func rows(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> QueryRows {
        try await withConnection { connection in try await connection.rows(query, logger: logger, file: file, line: line) }
    }

    public func run(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws {
        _ = try await rows(query, logger: logger, file: file, line: line)
    }
}

// Transactions. PostgresNIO's `withTransaction` sends ROLLBACK after any error, also when the
// error is that PostgreSQL closed the connection (a statement that then hung, see above). A
// connection that failed has rolled back already, on the server's side: no ROLLBACK is sent.
extension PostgresConnection {
    /// BEGIN, `body`, COMMIT; ROLLBACK when `body` fails, unless the connection itself failed.
    /// Throws what `body` (or BEGIN, or COMMIT) threw, unwrapped.
    public func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await run("BEGIN", logger: logger)
        let value: Result
        do {
            value = try await body(self)
        } catch {
            if !PostgresErrors.isConnectionFailure(error) && !isClosed {
                do {
                    try await run("ROLLBACK", logger: logger)
                } catch {
                    logger.warning("ROLLBACK failed", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
            throw error
        }
        try await run("COMMIT", logger: logger)
        return value
    }
}

extension PostgresClient {
    /// A transaction on a connection of the pool (`PostgresConnection.transaction`).
    public func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection { connection in
            try await connection.transaction(logger: logger, body)
        }
    }
}
