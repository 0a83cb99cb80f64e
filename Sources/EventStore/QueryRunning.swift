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
