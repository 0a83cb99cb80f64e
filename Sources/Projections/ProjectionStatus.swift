import EventStore
import Foundation
import Logging
import PostgresNIO

/// Where a projector stands against the log.
public struct ProjectorStatus: Sendable, Equatable {
    public var name: String
    public var mode: ProjectorMode
    /// The async checkpoint; nil for inline projectors, which are always current.
    public var checkpoint: LogPosition?
    /// Events of the projector's types that it has not applied yet.
    public var lagEvents: Int64
    /// Age of the oldest event not yet applied; 0 when caught up.
    public var lagSeconds: Double
    /// Events it could not apply and set aside (`DeadLetters`).
    public var deadLetters: Int64 = 0

    public static func load(_ projectors: [any Projector], client: PostgresClient, logger: Logger) async throws -> [ProjectorStatus] {
        var statuses: [ProjectorStatus] = []
        let deadLetters = try await DeadLetters.counts(client: client, logger: logger)
        for projector in projectors {
            guard projector.mode == .async else {
                statuses.append(ProjectorStatus(name: projector.name, mode: .inline, checkpoint: nil, lagEvents: 0, lagSeconds: 0,
                                                deadLetters: deadLetters[projector.name] ?? 0))
                continue
            }
            let status = try await client.withConnection { connection in
                let checkpoint = try await Checkpoints.read(projector.name, on: connection, logger: logger)
                let rows = try await connection.rows("""
                    SELECT count(*), COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - min(recorded_at))::float8, 0)
                    FROM events
                    WHERE (transaction_id, global_position) > (\(String(checkpoint.transactionId))::xid8, \(checkpoint.globalPosition))
                      AND (\(projector.eventTypes)::text[] IS NULL OR event_type = ANY(\(projector.eventTypes)::text[]))
                    """, logger: logger)
                var lag: (Int64, Double) = (0, 0)
                for try await row in rows.decode((Int64, Double).self) { lag = row }
                return ProjectorStatus(name: projector.name, mode: .async, checkpoint: checkpoint, lagEvents: lag.0, lagSeconds: lag.1,
                                       deadLetters: deadLetters[projector.name] ?? 0)
            }
            statuses.append(status)
        }
        return statuses
    }
}
