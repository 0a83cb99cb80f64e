import EventStore
import Foundation
import Logging
import PostgresNIO

public enum RebuildError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyRunning(String)
    case unknownProjector(String)
    case unsafeIdentifier(String)
    case cutoverBlocked(projector: String, attempts: Int)

    public var description: String {
        switch self {
        case .alreadyRunning(let name): "a rebuild of \(name) is already running"
        case .unknownProjector(let name): "no projector is named \(name)"
        case .unsafeIdentifier(let name): "\(name) is not a plain lower-case SQL identifier"
        case let .cutoverBlocked(name, attempts):
            "the cutover of \(name) could not lock its live tables in \(attempts) tries: another session holds them "
                + "(see pg_locks); the live tables are untouched, and running the rebuild again resumes it"
        }
    }
}

public struct RebuildProgress: Sendable {
    public enum Phase: String, Sendable { case replaying, cuttingOver = "cutting over", done }
    public var projector: String
    public var phase: Phase
    public var eventsApplied: Int64
    /// The projector's events in the log when this run started; an estimate for the ETA.
    public var eventsEstimated: Int64
    public var elapsed: Duration
    /// Applied by an earlier, interrupted run this one resumed: not part of this run's rate.
    public var eventsResumedFrom: Int64 = 0
    public var eventsPerSecond: Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(eventsApplied - eventsResumedFrom) / seconds : 0
    }
    public var eta: Duration? {
        let rate = eventsPerSecond
        guard rate > 0, eventsEstimated > eventsApplied else { return nil }
        return .milliseconds(Int64(Double(eventsEstimated - eventsApplied) / rate * 1000))
    }
}

public struct RebuildReport: Sendable {
    public var projector: String
    public var eventsApplied: Int64
    public var resumed: Bool
    public var elapsed: Duration
    /// How long appends waited: the cutover transaction, which holds the append gate.
    public var cutoverDuration: Duration
}

/// Rebuilds a projector's read model beside the live one and swaps it in (DESIGN §3).
///
/// Fresh copies of the tables are made in the `lifelog_rebuild` schema and filled by replaying
/// the log gap-safely in batches, each committed with its progress, so a rebuild that is killed
/// leaves the live tables untouched and the next run resumes. The cutover takes the append gate
/// exclusively, replays the last events, and swaps the tables in one transaction.
public struct ProjectionRebuilder: Sendable {
    public static let shadowSchema = "lifelog_rebuild"

    let client: PostgresClient
    /// Opens the log's sealed payloads; an erased owner's events are passed over.
    let keyring: OwnerKeyring
    let logger: Logger
    let batchSize: Int
    let clock: ContinuousClock
    /// How long one cutover attempt may wait for a live table's lock. Appends wait on the gate
    /// meanwhile, so a session holding a read model open (a forgotten psql, a dump) must not
    /// stall every write: the attempt gives up, rolls back and tries again a little later.
    let cutoverLockTimeout: Duration
    let cutoverAttempts: Int

    public init(client: PostgresClient, keyring: OwnerKeyring, logger: Logger, batchSize: Int = 5_000, clock: ContinuousClock = ContinuousClock(),
                cutoverLockTimeout: Duration = .seconds(2), cutoverAttempts: Int = 5) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
        self.batchSize = batchSize
        self.clock = clock
        self.cutoverLockTimeout = cutoverLockTimeout
        self.cutoverAttempts = max(1, cutoverAttempts)
    }

    public func rebuild(
        _ projector: any Projector,
        progress: @escaping @Sendable (RebuildProgress) throws -> Void = { _ in }
    ) async throws -> RebuildReport {
        for table in projector.tables { try Self.checkIdentifier(table) }
        let started = clock.now
        return try await client.withConnection { connection in
            let lockKey = AdvisoryLock.rebuild(projector.name)
            var locked = false
            for try await value in try await connection.rows(
                "SELECT pg_try_advisory_lock(\(lockKey.0), \(lockKey.1))", logger: logger
            ).decode(Bool.self) { locked = value }
            guard locked else { throw RebuildError.alreadyRunning(projector.name) }
            do {
                let report = try await rebuildLocked(projector, on: connection, started: started, progress: progress)
                try? await connection.run("SELECT pg_advisory_unlock(\(lockKey.0), \(lockKey.1))", logger: logger)
                return report
            } catch {
                try? await connection.run("SELECT pg_advisory_unlock(\(lockKey.0), \(lockKey.1))", logger: logger)
                throw PostgresErrors.unwrap(error)
            }
        }
    }

    private func rebuildLocked(
        _ projector: any Projector, on connection: PostgresConnection, started: ContinuousClock.Instant,
        progress: @Sendable (RebuildProgress) throws -> Void
    ) async throws -> RebuildReport {
        let logger = self.logger
        let liveSchema = try await Self.scalar(String.self, "SELECT current_schema()", on: connection, logger: logger) ?? "public"
        try Self.checkIdentifier(liveSchema)
        let shadowPath = "\(Self.shadowSchema), \(liveSchema)"
        // The events this projector reads, for the ETA (an estimate: appends go on meanwhile).
        let estimated = try await Self.scalar(Int64.self, """
            SELECT count(*) FROM events WHERE \(projector.eventTypes)::text[] IS NULL OR event_type = ANY(\(projector.eventTypes)::text[])
            """, on: connection, logger: logger) ?? 0

        let (start, resumed) = try await prepareShadow(projector, liveSchema: liveSchema, on: connection)
        var position = start.position
        var applied = start.applied
        let report = { (phase: RebuildProgress.Phase, applied: Int64) in
            RebuildProgress(projector: projector.name, phase: phase, eventsApplied: applied,
                            eventsEstimated: estimated, elapsed: clock.now - started, eventsResumedFrom: start.applied)
        }

        (position, applied) = try await replay(projector, from: position, applied: applied, shadowPath: shadowPath, on: connection) {
            try progress(report(.replaying, $0))
        }

        // Cutover: appends wait while we apply what is left and swap the tables.
        try progress(report(.cuttingOver, applied))
        let cutoverStarted = clock.now
        let (seconds, attoseconds) = cutoverLockTimeout.components
        let lockTimeoutMs = String(max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000))
        var final: (LogPosition, Int64)?
        for attempt in 1...cutoverAttempts where final == nil {
            do {
                final = try await connection.transaction(logger: logger) { connection in
                    try await swapIn(projector, after: position, applied: applied, liveSchema: liveSchema, shadowPath: shadowPath,
                                     lockTimeoutMs: lockTimeoutMs, on: connection)
                }
            } catch where PostgresErrors.sqlState(error) == PostgresErrors.lockNotAvailable {
                // Rolled back: the shadow tables and their progress are as before this attempt.
                logger.warning("rebuild cutover waited too long for a table lock; trying again", metadata: [
                    "projector": "\(projector.name)", "attempt": "\(attempt)",
                ])
                if attempt < cutoverAttempts { try await Task.sleep(for: cutoverLockTimeout * attempt) }
            }
        }
        guard let final else { throw RebuildError.cutoverBlocked(projector: projector.name, attempts: cutoverAttempts) }
        let cutover = clock.now - cutoverStarted
        applied = final.1
        try? progress(report(.done, applied))
        return RebuildReport(projector: projector.name, eventsApplied: applied, resumed: resumed,
                             elapsed: clock.now - started, cutoverDuration: cutover)
    }

    /// Makes (or finds, to resume) the shadow tables. Resumes only if the live tables still have
    /// the definition the shadow copies were made from.
    private func prepareShadow(
        _ projector: any Projector, liveSchema: String, on connection: PostgresConnection
    ) async throws -> (start: (position: LogPosition, applied: Int64), resumed: Bool) {
        // Over 60 lines: one transaction that makes or resumes the shadow tables, its statements in order.
        try await connection.transaction(logger: logger) { connection in
            try await connection.run("CREATE SCHEMA IF NOT EXISTS lifelog_rebuild", logger: logger)
            // The server's role erases a user from these tables too (ErasureStore); the default
            // privileges of schema/0001 give it their rows, this gives it the schema.
            try await connection.run("""
                DO $$ BEGIN
                  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lifelog_app') THEN GRANT USAGE ON SCHEMA lifelog_rebuild TO lifelog_app; END IF;
                END $$
                """, logger: logger)
            try await connection.run("""
                CREATE TABLE IF NOT EXISTS lifelog_rebuild.rebuild_progress (
                  projector       text   PRIMARY KEY,
                  definition      text   NOT NULL,
                  transaction_id  xid8   NOT NULL,
                  global_position bigint NOT NULL,
                  events_applied  bigint NOT NULL)
                """, logger: logger)
            try await connection.run("""
                CREATE TABLE IF NOT EXISTS lifelog_rebuild.projection_dead_letters
                  (LIKE \(unescaped: liveSchema).projection_dead_letters INCLUDING ALL)
                """, logger: logger)
            // The live tables' columns, indexes and constraints: if a migration changes any of
            // them while a killed rebuild waits, resuming would swap in tables without the change.
            let tables = projector.tables
            let definition = try await Self.scalar(String.self, """
                SELECT md5(
                  coalesce((SELECT string_agg(table_name || '.' || column_name || ':' || data_type || ':' || is_nullable || ':'
                                              || coalesce(column_default, ''), ',' ORDER BY table_name, ordinal_position)
                            FROM information_schema.columns
                            WHERE table_schema = \(liveSchema) AND table_name = ANY(\(tables)::text[])), '')
                  || '|' || coalesce((SELECT string_agg(indexdef, ',' ORDER BY indexdef) FROM pg_indexes
                                      WHERE schemaname = \(liveSchema) AND tablename = ANY(\(tables)::text[])), '')
                  || '|' || coalesce((SELECT string_agg(r.relname || ':' || pg_get_constraintdef(c.oid), ',' ORDER BY r.relname, pg_get_constraintdef(c.oid))
                                      FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace
                                      WHERE n.nspname = \(liveSchema) AND r.relname = ANY(\(tables)::text[])), ''))
                """, on: connection, logger: logger) ?? ""
            let rows = try await connection.rows("""
                SELECT definition, transaction_id::text, global_position, events_applied
                FROM lifelog_rebuild.rebuild_progress WHERE projector = \(projector.name)
                """, logger: logger)
            var saved: (String, String, Int64, Int64)?
            for try await row in rows.decode((String, String, Int64, Int64).self) { saved = row }
            let shadowTables = try await Self.scalar(Int.self, """
                SELECT count(*)::int FROM information_schema.tables
                WHERE table_schema = 'lifelog_rebuild' AND table_name = ANY(\(projector.tables)::text[])
                """, on: connection, logger: logger) ?? 0
            if let saved, saved.0 == definition, shadowTables == projector.tables.count {
                let position = try LogPosition(transactionText: saved.1, globalPosition: saved.2)
                logger.info("resuming rebuild", metadata: ["projector": "\(projector.name)", "position": "\(position)"])
                return ((position, saved.3), true)
            }
            try await connection.run("DELETE FROM lifelog_rebuild.projection_dead_letters WHERE projector = \(projector.name)", logger: logger)
            for table in projector.tables {
                try await connection.run("DROP TABLE IF EXISTS lifelog_rebuild.\(unescaped: table)", logger: logger)
                try await connection.run(
                    "CREATE TABLE lifelog_rebuild.\(unescaped: table) (LIKE \(unescaped: liveSchema).\(unescaped: table) INCLUDING ALL)",
                    logger: logger)
            }
            try await connection.run("""
                INSERT INTO lifelog_rebuild.rebuild_progress (projector, definition, transaction_id, global_position, events_applied)
                VALUES (\(projector.name), \(definition), '0'::xid8, 0, 0)
                ON CONFLICT (projector) DO UPDATE SET definition = excluded.definition,
                  transaction_id = excluded.transaction_id, global_position = 0, events_applied = 0
                """, logger: logger)
            return ((LogPosition.start, 0), false)
        }
    }

    static func saveProgress(_ projector: String, _ position: LogPosition, applied: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("""
            UPDATE lifelog_rebuild.rebuild_progress
            SET transaction_id = \(String(position.transactionId))::xid8, global_position = \(position.globalPosition),
                events_applied = \(applied)
            WHERE projector = \(projector)
            """, logger: logger)
    }

    static func scalar<T: PostgresDecodable>(_ type: T.Type, _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> T? {
        for try await value in try await connection.rows(query, logger: logger).decode(T.self) {
            return value
        }
        return nil
    }

    static func checkIdentifier(_ name: String) throws {
        let valid = !name.isEmpty && name.count <= 63
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
            && !("0"..."9").contains(name.unicodeScalars.first ?? "0")
        guard valid else { throw RebuildError.unsafeIdentifier(name) }
    }
}
