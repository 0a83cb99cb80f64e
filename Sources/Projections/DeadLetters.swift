import EventStore
import Foundation
import Logging
import PostgresNIO

/// Events a projector could not apply (`projection_dead_letters`, issue 24). One event that
/// cannot be applied (a date PostgreSQL cannot compute with, a payload that no longer decodes)
/// must not stop a projector for every user: it is recorded here with its error and skipped, and
/// the batch goes on. Only faults of the event itself are set aside; a database that is away,
/// a lock, a conflict or broken SQL fails the batch as before, to be retried whole.
public enum DeadLetters {
    /// One event set aside.
    public struct Entry: Sendable, Equatable {
        public var projector: String
        public var position: LogPosition
        public var eventId: UUID
        public var eventType: String
        public var error: String
        public var attempts: Int
    }

    /// True when `error` is about the event being applied rather than the database or the code:
    /// SQLSTATE class 22 (data exception) or 23 (integrity), or an error thrown in Swift while
    /// reading the event (its payload does not decode, a value the projector cannot take).
    public static func isEventFault(_ error: any Error) -> Bool {
        let error = PostgresErrors.unwrap(error)
        if error is CancellationError || PostgresErrors.isConnectionFailure(error) { return false }
        if let psql = error as? PSQLError {
            guard let state = psql.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("22") || state.hasPrefix("23")
        }
        return !(error is PostgresDecodingError)
    }

    /// Applies `events` in a savepoint; when that fails for a fault of some event, applies them
    /// one by one, each in its own savepoint, and records each that fails here (in the table
    /// `search_path` finds, so a rebuild records into its shadow schema). Returns those set aside.
    @discardableResult
    public static func apply(
        _ events: [RecordedEvent], with projector: any Projector, keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Entry] {
        // An erased owner's events keep their place in the log and are passed over.
        let events = events.filter { !$0.shredded }
        guard !events.isEmpty else { return [] }
        try await connection.run("SAVEPOINT lifelog_batch", logger: logger)
        do {
            try await projector.apply(events, keyring: keyring, on: connection, logger: logger)
            try await connection.run("RELEASE SAVEPOINT lifelog_batch", logger: logger)
            return []
        } catch where isEventFault(error) {
            try await connection.run("ROLLBACK TO SAVEPOINT lifelog_batch", logger: logger)
        }
        var failed: [Entry] = []
        for event in events {
            try await connection.run("SAVEPOINT lifelog_event", logger: logger)
            do {
                try await projector.apply([event], keyring: keyring, on: connection, logger: logger)
                try await connection.run("RELEASE SAVEPOINT lifelog_event", logger: logger)
            } catch where isEventFault(error) {
                try await connection.run("ROLLBACK TO SAVEPOINT lifelog_event", logger: logger)
                let entry = Entry(projector: projector.name, position: event.position, eventId: event.eventId,
                                  eventType: event.type, error: describe(error), attempts: 1)
                try await record(entry, ownerId: event.ownerId, on: connection, logger: logger)
                failed.append(entry)
                // The event's position and type, not its content: a payload may hold personal data.
                logger.error("projector set an event aside", metadata: [
                    "projector": "\(projector.name)", "position": "\(event.position)", "event_type": "\(event.type)",
                ])
            }
        }
        try await connection.run("RELEASE SAVEPOINT lifelog_batch", logger: logger)
        return failed
    }

    /// Events set aside per projector.
    public static func counts(client: PostgresClient, logger: Logger) async throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        let rows = try await client.rows("SELECT projector, count(*) FROM projection_dead_letters GROUP BY projector", logger: logger)
        for try await (name, count) in rows.decode((String, Int64).self) { counts[name] = count }
        return counts
    }

    /// The events `projector` set aside, in log order.
    public static func list(_ projector: String, client: PostgresClient, logger: Logger) async throws -> [Entry] {
        let rows = try await client.rows("""
            SELECT transaction_id::text AS transaction_text, global_position, event_id, event_type, error, attempts FROM projection_dead_letters
            WHERE projector = \(projector) ORDER BY projection_dead_letters.transaction_id, global_position
            """, logger: logger)
        var entries: [Entry] = []
        for try await (tx, position, eventId, type, error, attempts) in rows.decode((String, Int64, UUID, String, String, Int32).self) {
            entries.append(Entry(projector: projector, position: try LogPosition(transactionText: tx, globalPosition: position),
                                 eventId: eventId, eventType: type, error: error, attempts: Int(attempts)))
        }
        return entries
    }

    /// Applies again, in log order, every event `projector` set aside (after a fix of the code or
    /// of the data it needs): each that applies now leaves the table, each that still fails stays
    /// with its new error. Holds the projector's lock, so its async batches wait meanwhile.
    /// Returns (applied, still failing).
    public static func retry(
        _ projector: any Projector, client: PostgresClient, keyring: OwnerKeyring, logger: Logger
    ) async throws -> (applied: Int, failing: Int) {
        do {
            return try await client.transaction(logger: logger) { connection in
                let key = AdvisoryLock.projector(projector.name)
                try await connection.run("SELECT pg_advisory_xact_lock(\(key.0), \(key.1))", logger: logger)
                let rows = try await connection.rows("""
                    SELECT global_position FROM projection_dead_letters WHERE projector = \(projector.name)
                    """, logger: logger)
                var positions: [Int64] = []
                for try await position in rows.decode(Int64.self) { positions.append(position) }
                let events = try await PostgresEventStore.readEvents(positions: positions, keyring: keyring, on: connection, logger: logger)
                let failed = try await apply(events, with: projector, keyring: keyring, on: connection, logger: logger)
                let stillFailing = failed.map(\.position.globalPosition)
                try await connection.run("""
                    DELETE FROM projection_dead_letters
                    WHERE projector = \(projector.name) AND global_position = ANY(\(positions)::bigint[])
                      AND NOT global_position = ANY(\(stillFailing)::bigint[])
                    """, logger: logger)
                return (events.count - failed.count, failed.count)
            }
        } catch {
            throw PostgresErrors.unwrap(error)
        }
    }

    /// What the error says, without the stack of wrappers: the server's message, or the Swift error.
    static func describe(_ error: any Error) -> String {
        let error = PostgresErrors.unwrap(error)
        if let psql = error as? PSQLError, let message = psql.serverInfo?[.message] {
            return "\(psql.serverInfo?[.sqlState] ?? "") \(message)"
        }
        return String(String(describing: error).prefix(1_000))
    }

    static func record(_ entry: Entry, ownerId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("""
            INSERT INTO projection_dead_letters (projector, global_position, transaction_id, event_id, owner_id, event_type, error)
            VALUES (\(entry.projector), \(entry.position.globalPosition), \(String(entry.position.transactionId))::xid8,
                    \(entry.eventId), \(ownerId), \(entry.eventType), \(entry.error))
            ON CONFLICT (projector, global_position) DO UPDATE SET
              error = excluded.error, attempts = projection_dead_letters.attempts + 1, last_failed_at = clock_timestamp()
            """, logger: logger)
    }
}
