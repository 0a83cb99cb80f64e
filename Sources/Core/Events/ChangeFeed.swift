import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections
import ServiceLifecycle
import Synchronization

/// Tells each signed-in client what changed in its user's data, as it happens: the server-sent
/// events of `GET /api/v1/events/stream` (issue 28). One reader per server follows the log
/// gap-safely (the order and frontier every async projector uses), reading only each event's
/// position, owner, stream and type, and hands each event to the subscribers of its owner. It
/// wakes on `NOTIFY lifelog_events` (sent after every commit by each instance's `ReaderWaker`),
/// looks again within 100 ms while events wait behind the frontier (`FrontierFollower`), and
/// polls as a fallback.
///
/// A subscription ends when its session ends: `NOTIFY lifelog_sessions` (sent by every sign-out,
/// sign-out everywhere, password change and revoked refresh family) makes the feed look up the
/// sessions of its subscribers, and it also looks every `sessionCheck` in case a notification
/// was lost.
public final class ChangeFeed: Service, Sendable {
    public static let sessionsChannel = SessionStore.channel

    /// One event of the log, as much of it as a client needs to know what to read again.
    public typealias Change = LogHeader

    struct Subscriber {
        var userId: UUID
        var sessionId: UUID
        var continuation: AsyncStream<Change>.Continuation
    }

    struct State {
        var checkpoint: LogPosition?
        var subscribers: [UInt64: Subscriber] = [:]
        var lastId: UInt64 = 0
    }

    let client: PostgresClient
    let listener: PostgresConnection.Configuration?
    let pollInterval: Duration
    let sessionCheck: Duration
    let logger: Logger
    private let state = Mutex(State())
    private let wake = CommitSignal()
    private let sessionsWake = CommitSignal()

    public init(client: PostgresClient, listener: PostgresConnection.Configuration?, pollInterval: Duration = .seconds(1),
                sessionCheck: Duration = .seconds(15), logger: Logger) {
        self.client = client
        self.listener = listener
        self.pollInterval = pollInterval
        self.sessionCheck = sessionCheck
        self.logger = logger
    }

    /// How many clients follow the feed now (for tests and `/metrics`).
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Whether the feed has placed itself in the log (its first read): changes from then on reach
    /// its subscribers (for tests).
    public var isFollowing: Bool { state.withLock { $0.checkpoint != nil } }

    /// Follows the user's changes from now on: every event the feed reads after this call. The
    /// stream finishes when the session ends or the feed stops; dropping it unsubscribes.
    public func subscribe(userId: UUID, sessionId: UUID) -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .bufferingNewest(10_000))
        let id = state.withLock { state in
            state.lastId += 1
            state.subscribers[state.lastId] = Subscriber(userId: userId, sessionId: sessionId, continuation: continuation)
            return state.lastId
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Asks the feed to read the log now (a commit in this process; tests).
    public func poke() { wake.ring() }

    /// Asks the feed to look up its subscribers' sessions now.
    public func checkSessions() { sessionsWake.ring() }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.follow() }
        finishAll()
    }

    /// Reads and hands out until cancelled.
    public func follow() async {
        await withTaskGroup(of: Void.self) { group in
            let wake = self.wake, sessionsWake = self.sessionsWake, logger = self.logger
            if let listener {
                group.addTask { await PostgresListener.run(listener, channel: ReaderWaker.channel, logger: logger) { wake.ring() } }
                group.addTask { await PostgresListener.run(listener, channel: Self.sessionsChannel, logger: logger) { sessionsWake.ring() } }
            }
            let pollInterval = self.pollInterval, sessionCheck = self.sessionCheck
            group.addTask {
                while (try? await Task.sleep(for: pollInterval)) != nil { wake.ring() }
            }
            group.addTask {
                while (try? await Task.sleep(for: sessionCheck)) != nil { sessionsWake.ring() }
            }
            group.addTask {
                while await sessionsWake.next() {
                    do { try await self.endClosedSessions() } catch {
                        if Task.isCancelled { return }
                        logger.warning("change feed: could not look up sessions", metadata: ["error": "\(String(reflecting: error))"])
                    }
                }
            }
            group.addTask {
                wake.ring()
                var failures = 0
                while await wake.next() {
                    do {
                        // Nobody to tell: the next wake-up reads on. Past the poll interval, the poll does.
                        try await FrontierFollower.catchUp({ try await self.catchUp() },
                                                           whileUnread: { self.subscriberCount > 0 ? try await self.hasUnread() : false },
                                                           limit: pollInterval)
                        failures = 0
                    } catch {
                        if Task.isCancelled { return }
                        failures += 1
                        logger.warning("change feed: could not read the log", metadata: ["error": "\(String(reflecting: error))"])
                        try? await Task.sleep(for: .milliseconds(min(5_000, 50 << min(failures, 6))))
                        wake.ring()
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Ends every subscription (the feed stops).
    func finishAll() {
        let all = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
    }

    static let batch = 1_000

    /// Reads and hands out until the frontier; answers how many events it read.
    func catchUp() async throws -> Int {
        var total = 0
        while true {
            let (count, more) = try await readNew()
            total += count
            if !more { return total }
        }
    }

    /// True when the log holds events past what the feed has read, visible or not yet.
    func hasUnread() async throws -> Bool {
        guard let checkpoint = state.withLock({ $0.checkpoint }) else { return false }
        let (client, logger) = (self.client, self.logger)
        return try await client.withConnection { connection in
            try await PostgresEventStore.hasEvents(after: checkpoint, on: connection, logger: logger)
        }
    }

    /// Reads the next batch and hands it out: how many it read, and whether there may be more.
    func readNew() async throws -> (count: Int, more: Bool) {
        let logger = self.logger
        guard let checkpoint = state.withLock({ $0.checkpoint }) else {
            // First read: from the head below the frontier, so only what happens from now on.
            let head = try await client.withConnection { connection in
                let frontier = try await PostgresEventStore.frontier(on: connection, logger: logger)
                return try await PostgresEventStore.head(below: frontier, on: connection, logger: logger)
            }
            state.withLock { $0.checkpoint = $0.checkpoint ?? head ?? .start }
            return (0, false)
        }
        let changes = try await Self.read(client, after: checkpoint, owner: nil, limit: Self.batch, logger: logger)
        guard let last = changes.last else { return (0, false) }
        let subscribers = state.withLock { state -> [Subscriber] in
            state.checkpoint = last.position
            return Array(state.subscribers.values)
        }
        if !subscribers.isEmpty {
            let byOwner = Dictionary(grouping: subscribers, by: \.userId)
            for change in changes {
                for subscriber in byOwner[change.ownerId] ?? [] { subscriber.continuation.yield(change) }
            }
        }
        return (changes.count, changes.count == Self.batch)
    }

    /// Events after `position` below the snapshot frontier (gap-safe), of one owner or all.
    public static func read(_ client: PostgresClient, after position: LogPosition, owner: UUID?, limit: Int, logger: Logger) async throws -> [Change] {
        try await PostgresEventStore.headers(client, after: position, owner: owner, limit: limit, logger: logger)
    }

    /// Finishes the subscriptions whose session has ended.
    func endClosedSessions() async throws {
        let sessions = state.withLock { Array(Set($0.subscribers.values.map(\.sessionId))) }
        guard !sessions.isEmpty else { return }
        let ended = try await SessionStore(client: client, logger: logger).ended(among: sessions)
        guard !ended.isEmpty else { return }
        let finished = state.withLock { state in
            let gone = state.subscribers.filter { ended.contains($0.value.sessionId) }
            for key in gone.keys { state.subscribers.removeValue(forKey: key) }
            return Array(gone.values)
        }
        for subscriber in finished { subscriber.continuation.finish() }
    }
}

extension LogHeader {
    /// The area a client reads again: habits, tasks, finance, savings, health or accounts.
    public var area: String {
        switch type.split(separator: ".").first.map(String.init) ?? "" {
        case "habit": "habits"
        case "task": "tasks"
        case "finance": "finance"
        case "savings": "savings"
        case "health": "health"
        default: "accounts"
        }
    }
}
