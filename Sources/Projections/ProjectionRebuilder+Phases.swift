import EventStore
import Foundation
import Logging
import PostgresNIO

// The two phases of a rebuild after the shadow tables are ready: the replay while appends go
// on, and the cutover that swaps the shadow tables in while appends wait.
extension ProjectionRebuilder {
    /// Replays the log into the shadow tables while appends go on, batch by batch, each batch
    /// with its progress row (`progressed` with the count applied after each); answers where it
    /// stopped and the count.
    func replay(
        _ projector: any Projector, from start: LogPosition, applied done: Int64, shadowPath: String,
        on connection: PostgresConnection, progressed: (Int64) throws -> Void
    ) async throws -> (LogPosition, Int64) {
        let logger = self.logger
        var (position, applied) = (start, done)
        let patience = clock.now + .seconds(10)
        while true {
            let done = applied
            let from = position
            let batch: [RecordedEvent] = try await connection.transaction(logger: logger) { connection in
                try await connection.run("SELECT set_config('search_path', \(shadowPath), true)", logger: logger)
                let events = try await PostgresEventStore.readAll(
                    after: from, limit: batchSize, types: projector.eventTypes, keyring: keyring, on: connection, logger: logger)
                guard let last = events.last else { return [] }
                // Into the shadow schema's dead letters: they replace the live ones at the cutover.
                try await DeadLetters.apply(events, with: projector, keyring: keyring, on: connection, logger: logger)
                try await Self.saveProgress(projector.name, last.position, applied: done + Int64(events.count), on: connection, logger: logger)
                return events
            }
            if let last = batch.last {
                position = last.position
                applied += Int64(batch.count)
                try progressed(applied)
            }
            // A short batch means caught up, or a transaction elsewhere (in any database of the
            // cluster) holds the snapshot frontier back. What is left the cutover applies while
            // every append waits, so a lot left behind the frontier is waited for (briefly) here.
            if batch.count < batchSize {
                guard try await Self.beyondFrontier(projector, after: position, atLeast: batchSize, on: connection, logger: logger),
                      clock.now < patience else { break }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return (position, applied)
    }

    /// True when the log holds at least `count` events of the projector after `position`,
    /// visible or not yet.
    static func beyondFrontier(
        _ projector: any Projector, after position: LogPosition, atLeast count: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let rows = try await connection.rows("""
            SELECT count(*) >= \(count) FROM (SELECT 1 FROM events
              WHERE (transaction_id, global_position) > (\(String(position.transactionId))::xid8, \(position.globalPosition))
                AND (\(projector.eventTypes)::text[] IS NULL OR event_type = ANY(\(projector.eventTypes)::text[]))
              LIMIT \(count)) AS ahead
            """, logger: logger)
        for try await enough in rows.decode(Bool.self) { return enough }
        return false
    }

    /// Under the append gate (and the projector's lock, for an async one): applies what is
    /// left, swaps the shadow tables for the live ones, moves the dead letters and the
    /// checkpoint. Answers where it stopped and how many events the rebuild applied.
    func swapIn(
        _ projector: any Projector, after position: LogPosition, applied: Int64, liveSchema: String, shadowPath: String,
        lockTimeoutMs: String, on connection: PostgresConnection
    ) async throws -> (LogPosition, Int64) {
        let logger = self.logger
        let gate = AdvisoryLock.appendGate
        // Bounded from the gate on: while this waits for it exclusively, every append waits behind
        // it (a long erasure holds it shared); an attempt that gives up is tried again later.
        try await connection.run("SELECT set_config('lock_timeout', \(lockTimeoutMs), true)", logger: logger)
        if projector.fusion != nil {
            // An append whose statement keeps this model locks its tables before the gate
            // (`AppendFusion`): the same order here, or the two wait for each other.
            for table in projector.tables {
                try await connection.run("LOCK TABLE \(unescaped: liveSchema).\(unescaped: table) IN ACCESS EXCLUSIVE MODE", logger: logger)
            }
        }
        try await connection.run("SELECT pg_advisory_xact_lock(\(gate.0), \(gate.1))", logger: logger)
        if projector.mode == .async {
            let key = AdvisoryLock.projector(projector.name)
            try await connection.run("SELECT pg_advisory_xact_lock(\(key.0), \(key.1))", logger: logger)
        }
        try await connection.run("SELECT set_config('search_path', \(shadowPath), true)", logger: logger)
        var position = position
        var applied = applied
        while true {
            let events = try await PostgresEventStore.readAllUnderExclusiveGate(
                after: position, limit: batchSize, types: projector.eventTypes, keyring: keyring, on: connection, logger: logger)
            guard let last = events.last else { break }
            try await DeadLetters.apply(events, with: projector, keyring: keyring, on: connection, logger: logger)
            position = last.position
            applied += Int64(events.count)
        }
        // Owners erased while the replay ran had rows put in the new tables before their key
        // went: they leave before the swap (the erasure took the gate, so it is visible now).
        let erased = try await ErasureStore.erasedOwners(on: connection, logger: logger)
        if !erased.isEmpty { try await ErasureStore.purge(erased, tables: Set(projector.tables), on: connection, logger: logger) }
        let appRoleExists = try await Self.scalar(
            Bool.self, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lifelog_app')",
            on: connection, logger: logger) ?? false
        for table in projector.tables {
            // Identifiers cannot be bound parameters; these are checked plain names from code.
            try await connection.run("DROP TABLE \(unescaped: liveSchema).\(unescaped: table)", logger: logger)
            try await connection.run("ALTER TABLE \(unescaped: Self.shadowSchema).\(unescaped: table) SET SCHEMA \(unescaped: liveSchema)", logger: logger)
            if appRoleExists {
                try await connection.run("GRANT SELECT, INSERT, UPDATE, DELETE ON \(unescaped: liveSchema).\(unescaped: table) TO lifelog_app", logger: logger)
            }
        }
        // What this replay set aside replaces what the live projector had set aside.
        try await connection.run("""
            DELETE FROM \(unescaped: liveSchema).projection_dead_letters WHERE projector = \(projector.name)
            """, logger: logger)
        try await connection.run("""
            INSERT INTO \(unescaped: liveSchema).projection_dead_letters
            SELECT * FROM lifelog_rebuild.projection_dead_letters
            WHERE projector = \(projector.name) AND owner_id <> ALL(\(erased)::uuid[])
            """, logger: logger)
        try await connection.run("DELETE FROM lifelog_rebuild.projection_dead_letters WHERE projector = \(projector.name)", logger: logger)
        if projector.mode == .async {
            try await connection.run("SELECT set_config('search_path', \(liveSchema), true)", logger: logger)
            try await Checkpoints.write(projector.name, position, on: connection, logger: logger)
        }
        try await connection.run("DELETE FROM lifelog_rebuild.rebuild_progress WHERE projector = \(projector.name)", logger: logger)
        return (position, applied)
    }
}
