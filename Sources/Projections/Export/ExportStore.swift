import Foundation
import Logging
import EventStore
import PostgresNIO

/// Reads everything one user owns as the export's lines (`ExportQueries`), in one snapshot (a
/// repeatable-read, read-only transaction: a write during a long export is either wholly in it
/// or not at all), a page of rows at a time through a server-side cursor, so memory stays flat
/// whatever the number of rows.
public struct ExportStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Calls `page` with each page of lines (JSON objects, no line ends), part after part.
    public func lines(of owner: UUID, pageSize: Int = 2_000, _ page: ([String]) async throws -> Void) async throws {
        let logger = self.logger
        try await client.withConnection { connection in
            try await connection.transaction(logger: logger) { connection in
                try await connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                for part in ExportQueries.parts(owner) {
                    try await connection.run(part.declare, logger: logger)
                    while true {
                        var lines: [String] = []
                        lines.reserveCapacity(pageSize)
                        let rows = try await connection.rows("FETCH \(unescaped: String(pageSize)) FROM export_part", logger: logger)
                        for row in rows.rows {
                            lines.append(try part.line?(row) ?? row.decode(String.self))
                        }
                        if !lines.isEmpty { try await page(lines) }
                        if lines.count < pageSize { break }
                    }
                    try await connection.run("CLOSE export_part", logger: logger)
                }
            }
        }
    }
}
