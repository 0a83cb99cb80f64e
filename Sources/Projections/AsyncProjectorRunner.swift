import EventStore
import Foundation
import Logging
import PostgresNIO

/// Follows the log for one async projector: reads gap-safely after its checkpoint, applies a batch
/// and moves the checkpoint in the same transaction, so each event takes effect exactly once.
public struct AsyncProjectorRunner: Sendable {
    public let projector: any Projector
    let client: PostgresClient
    let keyring: OwnerKeyring
    let batchSize: Int
    let logger: Logger
    /// Called after each committed batch (metrics, benchmarks).
    let onBatch: (@Sendable ([RecordedEvent]) -> Void)?

    public init(
        projector: any Projector, client: PostgresClient, keyring: OwnerKeyring, batchSize: Int = 1_000, logger: Logger,
        onBatch: (@Sendable ([RecordedEvent]) -> Void)? = nil
    ) {
        self.projector = projector
        self.client = client
        self.keyring = keyring
        self.batchSize = batchSize
        self.logger = logger
        self.onBatch = onBatch
    }

    /// Events of other types a type-filtered projector may leave behind its checkpoint before it
    /// moves past them without applying anything: a few to scan again, rather than a write per wake-up.
    static let skipDistance: Int64 = 256

    /// Applies one batch; returns how many events it applied.
    public func runBatch() async throws -> Int {
        let projector = self.projector
        let batchSize = self.batchSize
        let (logger, keyring) = (self.logger, self.keyring)
        let applied: [RecordedEvent]
        do {
            applied = try await client.transaction(logger: logger) { connection in
                // The projector's lock: one leader among instances, and a rebuild cutover waits for us.
                let key = AdvisoryLock.projector(projector.name)
                // A batch may legitimately outlast the pool's statement timeout (a thousand health
                // batches at once): the limit is for requests, so it is lifted for this transaction.
                try await connection.run("""
                    SELECT set_config('statement_timeout', '0', true), pg_advisory_xact_lock(\(key.0), \(key.1))
                    """, logger: logger)
                let checkpoint = try await Checkpoints.read(projector.name, on: connection, logger: logger)
                let frontier = try await PostgresEventStore.frontier(on: connection, logger: logger)
                let events = try await PostgresEventStore.readAll(
                    after: checkpoint, below: frontier, limit: batchSize, types: projector.eventTypes, keyring: keyring,
                    on: connection, logger: logger)
                var next = events.last?.position
                if events.count < batchSize, projector.eventTypes != nil,
                   let head = try await PostgresEventStore.head(below: frontier, on: connection, logger: logger), head > (next ?? checkpoint),
                   !events.isEmpty || head.globalPosition - checkpoint.globalPosition >= Self.skipDistance {
                    // Every event of this projector's types below the frontier is in hand, so the
                    // checkpoint may pass the others too: the next read starts after them instead of
                    // scanning them again (health projectors scanned every habit and finance event
                    // since the last health event, on every wake-up).
                    next = head
                }
                guard let next else { return [] }
                if events.isEmpty {
                    // Only skipping: a crash that loses this costs one more scan, not an event.
                    try await connection.run("SET LOCAL synchronous_commit = off", logger: logger)
                } else {
                    // An event it cannot apply is set aside (DeadLetters), not a stop for everyone.
                    try await DeadLetters.apply(events, with: projector, keyring: keyring, on: connection, logger: logger)
                }
                try await Checkpoints.write(projector.name, next, on: connection, logger: logger)
                return events
            }
        } catch {
            throw PostgresErrors.unwrap(error)
        }
        if !applied.isEmpty { onBatch?(applied) }
        return applied.count
    }

    /// Applies batches until the log has nothing more for this projector.
    @discardableResult
    public func catchUp() async throws -> Int {
        var total = 0
        while true {
            let count = try await runBatch()
            total += count
            if count < batchSize { return total }
        }
    }

    /// True when the log holds events for this projector past its checkpoint, visible or not.
    public func hasUnreadEvents() async throws -> Bool {
        let projector = self.projector
        let logger = self.logger
        return try await client.withConnection { connection in
            let checkpoint = try await Checkpoints.read(projector.name, on: connection, logger: logger)
            return try await PostgresEventStore.hasEvents(after: checkpoint, types: projector.eventTypes, on: connection, logger: logger)
        }
    }

    /// Runs until cancelled: catches up whenever `wakeups` yields (a NOTIFY or a poll tick), and
    /// keeps looking, briefly and with backoff, while events wait behind the frontier.
    public func run(wakeups: AsyncStream<Void>) async {
        var failures = 0
        for await _ in wakeups {
            do {
                try await FrontierFollower.catchUp({ try await catchUp() }, whileUnread: { try await hasUnreadEvents() })
                failures = 0
                // Wake-ups that come meanwhile collapse into one (the stream keeps the newest).
                if projector.pace > .zero { try await Task.sleep(for: projector.pace) }
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                failures += 1
                logger.error("async projector batch failed", metadata: [
                    "projector": "\(projector.name)", "error": "\(String(reflecting: error))",
                ])
                try? await Task.sleep(for: .milliseconds(min(5_000, 100 << min(failures, 6))))
            }
        }
    }
}
