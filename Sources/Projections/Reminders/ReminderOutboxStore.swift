import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// The SQL over `reminder_outbox` and `reminder_planner`.
public struct ReminderOutboxStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Opens the endpoints' stored secrets for the pushes it hands out.
    let sealer: any SecretSealing

    public init(client: PostgresClient, sealer: any SecretSealing, logger: Logger) {
        self.client = client
        self.sealer = sealer
        self.logger = logger
    }

    /// Takes the planning lock for the rest of `connection`'s transaction, when no other
    /// instance holds it: one planner at a time.
    public func takePlanningLock(on connection: PostgresConnection) async throws -> Bool {
        for try await got in try await connection.rows("SELECT pg_try_advisory_xact_lock(hashtext('lifelog.reminders.plan'))", logger: logger)
            .decode(Bool.self) { return got }
        return false
    }

    /// Wakes every instance's delivery daemon when the transaction commits (due rows were queued).
    public func notifyDue(on connection: PostgresConnection) async throws {
        try await connection.run("SELECT pg_notify(\(Self.channel), '')", logger: logger)
    }

    /// Where the planner stopped, read under the planning lock.
    public func plannedUntil(on connection: PostgresConnection) async throws -> Date? {
        for try await until in try await connection.rows("SELECT planned_until FROM reminder_planner", logger: logger).decode(Date.self) {
            return until
        }
        return nil
    }

    public func setPlannedUntil(_ until: Date, on connection: PostgresConnection) async throws {
        try await connection.run("""
            INSERT INTO reminder_planner (singleton, planned_until) VALUES (true, \(until))
            ON CONFLICT (singleton) DO UPDATE SET planned_until = EXCLUDED.planned_until
            """, logger: logger)
    }

    /// Adds reminders; a key already there is left alone (a rerun, or another job, made it).
    /// Returns how many rows are new.
    public func insert(_ reminders: [PlannedReminder], status: ReminderStatus, endpoints: [UUID: UUID], now: Date, on connection: PostgresConnection) async throws -> Int {
        guard !reminders.isEmpty else { return 0 }
        let data = try reminders.map { try EventCoding.encode($0.data) }
        let endpoint = reminders.map { status == .pending ? endpoints[$0.userId]?.uuidString ?? "" : "" }
        var inserted = 0
        for try await _ in try await connection.rows("""
            INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status,
                                         endpoint_id, next_attempt_at, created_at)
            SELECT gen_random_uuid(), r.user_id, r.key, 'reminder', r.kind, r.subject, r.due_at, r.due_local, r.title, r.body, r.data::jsonb,
                   \(status.rawValue), NULLIF(r.endpoint, '')::uuid, r.due_at, \(now)
            FROM unnest(\(reminders.map(\.userId)), \(reminders.map(\.key)), \(reminders.map(\.kind.rawValue)), \(reminders.map(\.subject)),
                        \(reminders.map(\.dueAt)), \(reminders.map(\.dueLocal)), \(reminders.map(\.title)), \(reminders.map(\.body)),
                        \(data), \(endpoint))
              AS r(user_id, key, kind, subject, due_at, due_local, title, body, data, endpoint)
            ON CONFLICT (key) DO NOTHING
            RETURNING id
            """, logger: logger).decode(UUID.self) { inserted += 1 }
        return inserted
    }

    /// Queues scheduled events (`savings.payment_overdue`) for the webhooks that want them, one
    /// row per webhook under `event/<webhook>/<name>/<subject>`.
    public func insert(_ events: [PlannedEvent], subscribers: [UUID: [UUID]], now: Date, on connection: PostgresConnection) async throws {
        var users: [UUID] = [], keys: [String] = [], names: [String] = [], subjects: [String] = [], dues: [Date] = []
        var locals: [String] = [], data: [String] = [], endpoints: [UUID] = []
        for event in events {
            for endpoint in subscribers[event.userId] ?? [] {
                users.append(event.userId)
                keys.append("event/\(endpoint.uuidString.lowercased())/\(event.name)/\(event.subject)")
                names.append(event.name)
                subjects.append(event.subject)
                dues.append(event.dueAt)
                locals.append(event.dueLocal)
                data.append(try EventCoding.encode(event.data))
                endpoints.append(endpoint)
            }
        }
        guard !keys.isEmpty else { return }
        try await connection.run("""
            INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status,
                                         endpoint_id, next_attempt_at, created_at)
            SELECT gen_random_uuid(), r.user_id, r.key, 'event', r.name, r.subject, r.due_at, r.due_local, '', '', r.data::jsonb, 'pending',
                   r.endpoint, r.due_at, \(now)
            FROM unnest(\(users), \(keys), \(names), \(subjects), \(dues), \(locals), \(data), \(endpoints))
              AS r(user_id, key, name, subject, due_at, due_local, data, endpoint)
            ON CONFLICT (key) DO NOTHING
            """, logger: logger)
    }

    /// Copies newly queued reminders to the user's event webhooks that asked for them
    /// (`reminder.*` or `reminder.<kind>`), each under its own key.
    public func copyToEventWebhooks(_ keys: [String], on connection: PostgresConnection) async throws {
        guard !keys.isEmpty else { return }
        try await connection.run("""
            INSERT INTO reminder_outbox (id, user_id, key, channel, kind, subject, due_at, due_local, title, body, data, status,
                                         endpoint_id, next_attempt_at, created_at)
            SELECT gen_random_uuid(), o.user_id, 'event/' || e.id || '/' || o.key, 'event', 'reminder.' || o.kind, o.subject, o.due_at,
                   o.due_local, o.title, o.body, o.data, 'pending', e.id, o.due_at, o.created_at
            FROM reminder_outbox o
            JOIN webhook_endpoints e ON e.user_id = o.user_id AND e.purpose = 'events' AND e.disabled_at IS NULL
             AND ('reminder.*' = ANY(e.events) OR 'reminder.' || o.kind = ANY(e.events))
            WHERE o.key = ANY(\(keys)) AND o.channel = 'reminder' AND o.status = 'pending'
            ON CONFLICT (key) DO NOTHING
            """, logger: logger)
    }

    /// A push to make: the row, where it goes, and with what secrets.
    public struct Claimed: Sendable {
        public var item: OutboxItem
        public var endpoint: WebhookEndpoint
        /// This worker's claim: an outcome is recorded only while the row is still its own.
        public var claim: UUID
        /// The row's place in the queue: a claim after it starts past it.
        public var cursor: ClaimCursor
    }

    /// The channel a writer of due rows notifies (in its transaction, so it arrives at commit),
    /// and the delivery daemons of every instance listen on.
    public static let channel = "lifelog_outbox"

    /// When the next pending push is due (a queued row now, a retry later, a row another worker
    /// holds when its lease ends); nil when none waits.
    public func nextAttempt() async throws -> Date? {
        for try await next in try await client.rows("""
            SELECT min(GREATEST(o.next_attempt_at, o.lease_until)) FROM reminder_outbox o JOIN webhook_endpoints e ON e.id = o.endpoint_id AND e.disabled_at IS NULL
            WHERE o.status = 'pending' AND o.endpoint_id IS NOT NULL
            """, logger: logger).decode(Date?.self) { return next }
        return nil
    }

    /// Where a worker's claims have got to in the queue's order (next attempt, id).
    public struct ClaimCursor: Sendable, Equatable {
        /// The row's next attempt as PostgreSQL prints it: it goes back exactly as it came, to
        /// the microsecond and for -infinity (the time of an event webhook), with no rounding
        /// through a `Date`'s seconds.
        var due: String
        var id: UUID
    }

    /// Takes up to `limit` pushes that are due, for this worker alone: rows another worker holds
    /// are skipped, and each taken row is leased for `lease` seconds (a worker that dies lets
    /// its rows go when the lease ends). Rows come in the queue's order, after `cursor` when
    /// given: a worker claiming again and again in one run starts where its last claim ended,
    /// not at the head among every row claimed before it (issue 30). A row a run passed over
    /// (leased elsewhere, or locked for a moment) is claimed by the next run.
    public func claim(limit: Int, now: Date, lease: Double, after cursor: ClaimCursor? = nil) async throws -> [Claimed] {
        var claimed: [(place: Int32, row: Claimed)] = []
        let token = UUID()
        let rows = try await client.rows(Self.claimQuery(limit: limit, now: now, lease: lease, after: cursor, token: token), logger: logger)
        for try await r in rows.decode((UUID, String, String, String, String, Date, String, String, String, String, Int32,
                                        UUID, UUID, String, String, String, String?, Date?, Date, String, Int32).self) {
            let item = OutboxItem(id: r.0, key: r.1, channel: r.2, kind: r.3, subject: r.4, dueAt: r.5, dueLocal: r.6, status: .pending,
                                  title: r.7, body: r.8, data: r.9, attempts: Int(r.10), lastStatus: nil, lastError: nil)
            // A secret the server's keys cannot open (its key was rotated away) signs nothing: the
            // receiver refuses the push, and the attempt is recorded as failed like any other.
            let endpoint = WebhookEndpoint(id: r.11, userId: r.12, purpose: r.13, url: r.14, events: [], secret: (try? sealer.open(r.15)) ?? "",
                                           previousSecret: r.16.flatMap { try? sealer.open($0) }, previousUntil: r.17, disabledAt: nil, disabledReason: nil, createdAt: r.18)
            claimed.append((r.20, Claimed(item: item, endpoint: endpoint, claim: token, cursor: ClaimCursor(due: r.19, id: r.0))))
        }
        // In the queue's order (an UPDATE's rows come back in none): the last is where the next claim starts.
        return claimed.sorted { $0.place < $1.place }.map(\.row)
    }

    /// Only rows whose endpoint is still there and enabled: a row left behind by a removed
    /// endpoint must never sit at the head of the queue (`lifelog_outbox_due`, schema/0027, which
    /// says why the walk is a function). Its ids come as an array, so this UPDATE finds them by the
    /// primary key whatever the statistics say (joined, it read the whole table); each row's place
    /// in it is its place in the queue.
    static func claimQuery(limit: Int, now: Date, lease: Double, after cursor: ClaimCursor?, token: UUID) -> PostgresQuery {
        """
        WITH due AS MATERIALIZED (
          SELECT ARRAY(SELECT lifelog_outbox_due(\(now), \(cursor?.due)::timestamptz, \(cursor?.id)::uuid, \(Int32(limit)))) AS ids)
        UPDATE reminder_outbox o SET lease_until = \(now.addingTimeInterval(lease)), attempts = o.attempts + 1, claim_id = \(token)
        FROM due, webhook_endpoints e
        WHERE o.id = ANY(due.ids) AND e.id = o.endpoint_id
        RETURNING o.id, o.key, o.channel, o.kind, o.subject, o.due_at, o.due_local, o.title, o.body, o.data::text, o.attempts,
                  e.id, e.user_id, e.purpose, e.url, e.secret, e.previous_secret, e.previous_until, e.created_at,
                  o.next_attempt_at::text, array_position(due.ids, o.id)
        """
    }

    /// Records the 2xx answers of one claim in one statement, and clears their endpoints'
    /// failure marks. A row that stopped being this claim's (an app acknowledged it, or the
    /// lease ran out and another worker took it) is left as it is, and its endpoint with it.
    public func delivered(_ answers: [(Claimed, status: Int)], now: Date) async throws {
        guard !answers.isEmpty else { return }
        try await client.run("""
            WITH done AS (
              UPDATE reminder_outbox o SET status = 'delivered', delivered_at = \(now), lease_until = NULL, last_status = d.status, last_error = NULL
              FROM unnest(\(answers.map(\.0.item.id)), \(answers.map(\.0.claim)), \(answers.map { Int32($0.status) }),
                          \(answers.map(\.0.endpoint.id))) AS d(id, claim, status, endpoint)
              WHERE o.id = d.id AND o.claim_id = d.claim AND o.status = 'pending'
              RETURNING d.endpoint)
            UPDATE webhook_endpoints SET failing_since = NULL
            WHERE id IN (SELECT id FROM webhook_endpoints WHERE id IN (SELECT endpoint FROM done) AND failing_since IS NOT NULL
                         -- In id order: two lanes clearing the same endpoints must not deadlock.
                         ORDER BY id FOR UPDATE)
            """, logger: logger)
    }

    private func owned(_ claimed: Claimed, _ rows: QueryRows) async throws -> Bool {
        var changed = false
        for try await _ in rows.decode(UUID.self) { changed = true }
        return changed
    }

    /// A failed attempt: retried at `retryAt`, or failed for good when nil. The endpoint is
    /// disabled at once on a 410, or when it has failed every attempt for five days.
    /// A reminder whose endpoint answered 410 stays pending, to pull.
    public func attemptFailed(_ claimed: Claimed, status: Int?, error: String, retryAt: Date?, gone: Bool, now: Date) async throws {
        let endpoint = claimed.endpoint.id
        let final = retryAt == nil ? "failed" : "pending"
        guard try await owned(claimed, client.rows("""
            UPDATE reminder_outbox SET status = CASE WHEN \(gone) AND channel = 'reminder' THEN 'pending' ELSE \(final) END,
              next_attempt_at = COALESCE(\(retryAt), next_attempt_at),
              lease_until = NULL, last_status = \(status.map(Int32.init)), last_error = \(error)
            WHERE id = \(claimed.item.id) AND claim_id = \(claimed.claim) AND status = 'pending'
            RETURNING id
            """, logger: logger)) else { return }
        // A retry is due sooner than a lease would end: the daemons that saw this row leased
        // wait for its lease, so they are told (the minute job or another instance may have pushed).
        if retryAt != nil { try await client.run("SELECT pg_notify(\(Self.channel), '')", logger: logger) }
        let cutoff = now.addingTimeInterval(-WebhookRules.disableAfter)
        var disabled: String?
        for try await reason in try await client.rows("""
            UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, \(now)),
              disabled_at = CASE WHEN \(gone) OR COALESCE(failing_since, \(now)) <= \(cutoff) THEN \(now) END,
              disabled_reason = CASE WHEN \(gone) THEN 'the receiver answered 410 Gone'
                                     WHEN COALESCE(failing_since, \(now)) <= \(cutoff) THEN 'every attempt failed for 5 days' END
            WHERE id = \(endpoint) AND disabled_at IS NULL
            RETURNING disabled_reason
            """, logger: logger).decode(String?.self) { disabled = reason }
        if disabled != nil { try await Self.release(endpoint, reason: "endpoint disabled", on: client, logger: logger) }
    }

    /// What waited for an endpoint that is disabled or removed: reminders stay pending, to pull;
    /// event pushes are failed.
    public static func release(_ endpoint: UUID, reason: String, on client: PostgresClient, logger: Logger) async throws {
        try await client.rows("""
            UPDATE reminder_outbox SET endpoint_id = NULL, lease_until = NULL
            WHERE endpoint_id = \(endpoint) AND status = 'pending' AND channel = 'reminder'
            """, logger: logger)
        try await client.rows("""
            UPDATE reminder_outbox SET status = 'failed', lease_until = NULL, last_error = \(reason)
            WHERE endpoint_id = \(endpoint) AND status = 'pending' AND channel = 'event'
            """, logger: logger)
    }

    // MARK: Reads for the API

    public func list(_ userId: UUID, statuses: [ReminderStatus], before cursor: (Date, UUID)?, limit: Int) async throws -> [OutboxItem] {
        let (beforeAt, beforeId) = cursor ?? (Date(timeIntervalSince1970: 253_402_300_799), UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        return try await items(try await client.rows("""
            SELECT id, key, channel, kind, subject, due_at, due_local, status, title, body, data::text, attempts, last_status, last_error
            FROM reminder_outbox
            WHERE user_id = \(userId) AND channel = 'reminder' AND status = ANY(\(statuses.map(\.rawValue)))
              AND (due_at, id) < (\(beforeAt), \(beforeId))
            ORDER BY due_at DESC, id DESC LIMIT \(limit)
            """, logger: logger))
    }

    public func item(_ userId: UUID, _ id: UUID) async throws -> OutboxItem? {
        try await items(try await client.rows("""
            SELECT id, key, channel, kind, subject, due_at, due_local, status, title, body, data::text, attempts, last_status, last_error
            FROM reminder_outbox WHERE user_id = \(userId) AND id = \(id) AND channel = 'reminder'
            """, logger: logger)).first
    }

    /// The app showed it: a pending reminder is delivered. Acknowledging again changes nothing.
    public func acknowledge(_ userId: UUID, _ id: UUID, now: Date) async throws -> OutboxItem? {
        try await client.rows("""
            UPDATE reminder_outbox SET status = 'delivered', delivered_at = \(now), endpoint_id = NULL, lease_until = NULL
            WHERE user_id = \(userId) AND id = \(id) AND channel = 'reminder' AND status IN ('pending', 'failed')
            """, logger: logger)
        return try await item(userId, id)
    }

    private func items(_ rows: QueryRows) async throws -> [OutboxItem] {
        var found: [OutboxItem] = []
        for try await r in rows.decode((UUID, String, String, String, String, Date, String, String, String, String, String, Int32, Int32?, String?).self) {
            guard let status = ReminderStatus(rawValue: r.7) else { throw CorruptData("reminder status", r.7) }
            found.append(OutboxItem(id: r.0, key: r.1, channel: r.2, kind: r.3, subject: r.4, dueAt: r.5, dueLocal: r.6, status: status,
                                    title: r.8, body: r.9, data: r.10, attempts: Int(r.11), lastStatus: r.12.map(Int.init), lastError: r.13))
        }
        return found
    }
}
