import Logging
import PostgresNIO

// A query's rows arrive as a lazy sequence, and a server error can come after the row
// description: a statement run for its effect must be drained, or its error is never seen.
extension PostgresConnection {
    public func run(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws {
        for try await _ in try await self.query(query, logger: logger, file: file, line: line) {}
    }
}

extension PostgresClient {
    public func run(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws {
        for try await _ in try await self.query(query, logger: logger, file: file, line: line) {}
    }
}

// Transactions. PostgresNIO's `withTransaction` sends ROLLBACK after any error, also when the
// error is that PostgreSQL closed the connection. By then the channel may have dropped its
// handlers, and a write to it is lost without failing the query's promise: the ROLLBACK waits
// forever, and with it the request (never answered) or the async projector (stopped for good).
// That is what requests in flight when PostgreSQL stopped met (issue 24, `bench/restart/run`).
// A connection that failed has rolled back already, on the server's side: no ROLLBACK is sent.
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
