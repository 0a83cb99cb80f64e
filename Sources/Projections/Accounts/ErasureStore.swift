import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Erasing an account (issue 29). The log is append-only, so its events are not removed: their
/// owner's data key is deleted (`owner_keys`), after which no one can open them, and in the same
/// transaction every row kept of the user beside the log goes: read models, security state,
/// reminders and webhooks, idempotent answers, throttles. `ErasureTests` checks a `pg_dump`.
public struct ErasureStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Every table that holds rows of a user, with the column that names them: `owner_id` for
    /// what is theirs, `user_id` for their account and for what others' goals keep of them
    /// (membership, invitations). Refresh tokens go before the sessions they reference.
    /// `ErasureTests.everyTableIsErasedOrNamedAsHoldingNoUsersRows` fails on a table in neither list.
    public static let rows: [(table: String, column: String)] = [
        ("rm_stream_summary", "owner_id"), ("rm_owner_activity", "owner_id"), ("projection_dead_letters", "owner_id"),
        ("rm_habits", "owner_id"), ("rm_habit_logs", "owner_id"), ("rm_habit_freezes", "owner_id"),
        ("rm_tasks", "owner_id"), ("rm_task_series", "owner_id"),
        ("rm_fin_categories", "owner_id"), ("rm_fin_budgets", "owner_id"), ("rm_fin_transactions", "owner_id"),
        ("rm_fin_month_totals", "owner_id"),
        ("rm_savings_goals", "owner_id"), ("rm_savings_plans", "owner_id"), ("rm_savings_members", "owner_id"),
        ("rm_savings_members", "user_id"), ("rm_savings_movements", "owner_id"), ("rm_savings_invitations", "owner_id"),
        ("rm_savings_invitations", "user_id"),
        ("rm_health_records", "owner_id"), ("rm_health_manual", "owner_id"), ("rm_health_settings", "owner_id"),
        ("rm_health_daily", "owner_id"), ("rm_health_sleep", "owner_id"), ("rm_health_checkins", "owner_id"),
        ("rm_health_recovery", "owner_id"), ("rm_health_findings", "owner_id"), ("rm_health_source_overlap", "owner_id"),
        ("rm_users", "user_id"), ("rm_user_zones", "user_id"), ("rm_devices", "user_id"),
        ("credentials", "user_id"), ("refresh_tokens", "user_id"), ("sessions", "user_id"), ("device_keys", "user_id"),
        ("pairing_codes", "user_id"), ("idempotency_keys", "user_id"),
        ("reminder_outbox", "user_id"), ("webhook_endpoints", "user_id"),
    ]

    /// Tables that hold no row of any one user's: the log and its keys (kept: the log is
    /// append-only and the key is deleted above), bookkeeping, and throttles by address
    /// (`auth_failures` rows keyed by the email are deleted by `erase`).
    public static let holdNoUsersRows: Set<String> = [
        "events", "streams", "owner_keys", "erased_owners", "projection_checkpoints", "schema_migrations", "reminder_planner",
        "auth_failures",
    ]

    public enum Failure: ProblemDescribing, Equatable {
        /// Events stored before payloads were sealed cannot be shredded; `lifelog migrate` seals them.
        case plainEventsRemain

        public var status: Int { 503 }
        public var slug: String { "erasure-unavailable" }
        public var title: String { "Erasure unavailable" }
        public var detail: String { "Some of this account's data is not sealed yet; the server seals it at its next start. Nothing was erased." }
        public var retryAfterSeconds: Int? { 60 }
    }

    /// Erases `owner` (whose email is `email`, lower-cased) in one transaction: marks them
    /// erased, deletes their data key, and purges every row of theirs. Takes the append gate
    /// shared (a rebuild's cutover, which takes it exclusively, then sees them erased and purges
    /// its new tables too) and waits for the owner's appends (their lock) and the projector
    /// batches that hold their key row.
    public func erase(_ owner: UUID, email: String, throttleKeys: [String] = [], throttlePrefixes: [String] = []) async throws {
        // Two erasures of users who share goals can lock each other's rows in opposite order,
        // and a refresh token stored meanwhile can still name a session being deleted: PostgreSQL
        // then aborts one of them, which is done again from the start.
        for attempt in 1...3 {
            do {
                return try await eraseOnce(owner, email: email, throttleKeys: throttleKeys, throttlePrefixes: throttlePrefixes)
            } catch where attempt < 3 && ["40P01", "23503"].contains(PostgresErrors.sqlState(error)) {
                continue
            }
        }
    }

    func eraseOnce(_ owner: UUID, email: String, throttleKeys: [String], throttlePrefixes: [String]) async throws {
        do {
            try await client.transaction(logger: logger) { connection in
                // A user with years of minute-level health data has millions of rows: the
                // request's statement limit is lifted for this transaction.
                try await connection.run("SELECT set_config('statement_timeout', '0', true)", logger: logger)
                // The tables appends keep in their own statement are locked before the gate, as
                // those appends lock them (`AppendFusion`); a rebuild's cutover does the same.
                for table in ProjectionCatalog.fusedTables {
                    try await connection.run("LOCK TABLE \(unescaped: table) IN ROW EXCLUSIVE MODE", logger: logger)
                }
                let gate = AdvisoryLock.appendGate
                try await connection.run("SELECT pg_advisory_xact_lock_shared(\(gate.0), \(gate.1))", logger: logger)
                let plain = try await connection.rows(
                    "SELECT EXISTS (SELECT 1 FROM events WHERE owner_id = \(owner) AND sealed IS NULL)", logger: logger)
                for try await exists in plain.decode(Bool.self) where exists { throw Failure.plainEventsRemain }
                try await connection.run("INSERT INTO erased_owners (owner_id) VALUES (\(owner)) ON CONFLICT DO NOTHING", logger: logger)
                // The owner's appends hold this lock shared to their commit (schema/0025, the same
                // key): the erasure waits for those in flight, and those after it find no key.
                try await connection.run("SELECT pg_advisory_xact_lock(1280068688, hashtext(\(owner)::uuid::text))", logger: logger)
                // Async projector batches hold the key row (FOR KEY SHARE) to their commit.
                try await connection.run("DELETE FROM owner_keys WHERE owner_id = \(owner)", logger: logger)
                try await Self.purge([owner], on: connection, logger: logger)
                // And from a rebuild's new tables, running or left by one that was interrupted.
                let shadow = try await connection.rows("""
                    SELECT table_name::text FROM information_schema.tables WHERE table_schema = \(ProjectionRebuilder.shadowSchema)
                    """, logger: logger)
                var shadowTables = Set<String>()
                for try await table in shadow.decode(String.self) { shadowTables.insert(table) }
                if !shadowTables.isEmpty {
                    try await Self.purge([owner], tables: shadowTables, schema: ProjectionRebuilder.shadowSchema, on: connection, logger: logger)
                }
                // Throttles are counted by what was typed (a keyed hash of the email), not by the account.
                try await connection.run("""
                    DELETE FROM auth_failures
                    WHERE key = ANY(\(throttleKeys)) OR EXISTS (SELECT 1 FROM unnest(\(throttlePrefixes)::text[]) AS p WHERE starts_with(key, p))
                    """, logger: logger)
                // Invitations others sent to this address before it had an account here.
                try await connection.run("DELETE FROM rm_savings_invitations WHERE lower(email) = \(email)", logger: logger)
                // Its event streams end on every instance (`ChangeFeed`): the sessions are gone.
                try await connection.run("SELECT pg_notify(\(SessionStore.channel), \(owner.uuidString.lowercased()))", logger: logger)
            }
        } catch {
            throw PostgresErrors.unwrap(error)
        }
    }

    /// Deletes every row of these owners from the tables `search_path` finds first (a rebuild's
    /// cutover points it at its new tables), or from `schema`'s, limited to `tables` when given.
    public static func purge(
        _ owners: [UUID], tables: Set<String>? = nil, schema: String? = nil, on connection: PostgresConnection, logger: Logger
    ) async throws {
        for (table, column) in Self.rows where tables?.contains(table) ?? true {
            // Identifiers cannot be bound; these are constants of this file and the rebuild's.
            let name = schema.map { "\($0).\(table)" } ?? table
            try await connection.run("""
                DELETE FROM \(unescaped: name) WHERE \(unescaped: column) = ANY(\(owners)::uuid[])
                """, logger: logger)
        }
    }

    /// Rows of erased owners that a write in flight at their erasure stored after it (a reminder
    /// planned from a read made before, an idempotent answer), swept again (`IdempotencyJanitor`'s
    /// rounds). Answers how many owners it swept.
    @discardableResult
    public func sweepRecentlyErased(since: Date) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.rows("SELECT owner_id FROM erased_owners WHERE erased_at >= \(since)", logger: logger)
            var owners: [UUID] = []
            for try await owner in rows.decode(UUID.self) { owners.append(owner) }
            if !owners.isEmpty {
                try await connection.run("DELETE FROM owner_keys WHERE owner_id = ANY(\(owners)::uuid[])", logger: logger)
                try await Self.purge(owners, on: connection, logger: logger)
            }
            return owners.count
        }
    }

    /// Prunes the rows an erasure deleted from every table it touched, at once rather than at
    /// autovacuum's next pass: until then a deleted row's bytes stay in the table's pages. Needs
    /// the tables' owner (`lifelog users erase` runs as it; the server's role cannot).
    public func vacuumAfterErasure() async throws {
        for table in Set(Self.rows.map(\.table)).union(["owner_keys", "auth_failures"]).sorted() {
            try await client.run("VACUUM \(unescaped: table)", logger: logger)
        }
    }

    /// The erased owners among all: a rebuild's cutover purges them from its new tables.
    public static func erasedOwners(on connection: PostgresConnection, logger: Logger) async throws -> [UUID] {
        var owners: [UUID] = []
        let rows = try await connection.rows("SELECT owner_id FROM erased_owners", logger: logger)
        for try await owner in rows.decode(UUID.self) { owners.append(owner) }
        return owners
    }
}
