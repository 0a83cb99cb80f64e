import Domain
import EventStore
import Foundation
import Logging

/// The one way a command changes the log, the same for every area: load the state the decision
/// needs with the stream version it was read at, decide (pure), append at exactly that version.
/// When another request appended in between, decide again from fresh state, a bounded number of
/// times; a client never gets a 409 it did nothing to cause. A stale If-Match is 412.
public struct CommandPath: Sendable {
    public let store: PostgresEventStore
    let maxAttempts: Int
    let queue = StreamQueue()
    let pipeline = DecisionPipeline()

    public init(store: PostgresEventStore, maxAttempts: Int = 40) {
        self.store = store
        self.maxAttempts = maxAttempts
    }

    /// A state read for a decision.
    public struct Loaded<State: Sendable>: Sendable {
        public var state: State
        /// The stream's version the state was read at; 0 when the stream does not exist.
        public var streamVersion: Int64
        /// What If-Match compares with when it is not the stream's version (a task's revision
        /// within its series' stream).
        public var resourceVersion: Int64?

        public init(state: State, streamVersion: Int64, resourceVersion: Int64? = nil) {
            self.state = state
            self.streamVersion = streamVersion
            self.resourceVersion = resourceVersion
        }
    }

    public struct Outcome: Sendable {
        /// What this request stored; empty when the command changed nothing or was replayed.
        public var appended: [RecordedEvent]
        /// An earlier attempt of this very request (same Idempotency-Key and body) had already
        /// stored its events: nothing was decided or stored again.
        public var replayed: Bool

        public init(appended: [RecordedEvent], replayed: Bool) {
            (self.appended, self.replayed) = (appended, replayed)
        }
    }

    /// What a command stored, and the state its decision left: the loaded state evolved by the
    /// stored events, at the stream's new version. Nil after a replay, where nothing was decided.
    public struct Decision<State: Sendable>: Sendable {
        public var outcome: Outcome
        /// Folded each time it is read (read it once): most callers only want the outcome, and
        /// folding a health batch's thousands of records again cost as much as deciding them.
        private let after: @Sendable () -> State?
        public var state: State? { after() }

        init(outcome: Outcome, state: @escaping @Sendable () -> State?) {
            self.outcome = outcome
            after = state
        }
    }

    @discardableResult
    public func run<D: Decider>(
        _ decider: D.Type, stream: StreamName, command: D.Command, context: CommandContext, time: DecisionTime,
        also: PostgresEventStore.AlsoInTransaction? = nil,
        load: () async throws -> Loaded<D.State>
    ) async throws -> Outcome {
        try await decide(decider, stream: stream, command: command, context: context, time: time, also: also, load: load).outcome
    }

    /// `run`, answering with the state after the command too, so that a service can answer
    /// from it instead of reading back what it just wrote.
    public func decide<D: Decider>(
        _ decider: D.Type, stream: StreamName, command: D.Command, context: CommandContext, time: DecisionTime,
        also: PostgresEventStore.AlsoInTransaction? = nil,
        load: () async throws -> Loaded<D.State>
    ) async throws -> Decision<D.State> {
        try await answeringRetries(context, stream: stream, replay: Decision<D.State>(outcome: Outcome(appended: [], replayed: true)) { nil }) {
            try await queue.serialized(stream.id) {
                try await decideAndAppend(decider, stream: stream, command: command, context: context, time: time, also: also, load: load)
            }
        }
    }

    /// `work`, or `replay` when this very request (its Idempotency-Key) was stored before it
    /// started or while it ran.
    func answeringRetries<T>(_ context: CommandContext, stream: StreamName, replay: T, _ work: () async throws -> T) async throws -> T {
        if context.idempotencySeed != nil, try await store.isStored(eventId: context.eventId(0)) {
            return replay
        }
        do {
            return try await work()
        } catch let error as ResourceError where context.idempotencySeed != nil {
            // A first attempt of this request that committed while this one was deciding (a
            // retry running beside it) makes its create a conflict: it is this request's own
            // work, so the answer is a replay.
            if try await store.isStored(eventId: context.eventId(0)) { return replay }
            throw error
        } catch EventStoreError.eventIdConflict where context.idempotencySeed != nil {
            if try await store.isStored(eventId: context.eventId(0)) { return replay }
            throw EventStoreError.eventIdConflict(stream: stream.id)
        }
    }

    func decideAndAppend<D: Decider>(
        _ decider: D.Type, stream: StreamName, command: D.Command, context: CommandContext, time: DecisionTime,
        also: PostgresEventStore.AlsoInTransaction?, load: () async throws -> Loaded<D.State>
    ) async throws -> Decision<D.State> {
        var attempt = 0
        while true {
            attempt += 1
            let loaded = try await load()
            // No stream, no resource: the decider answers (404 for anything but a create), not If-Match.
            if let ifMatch = context.ifMatch, loaded.streamVersion > 0, ifMatch != loaded.resourceVersion ?? loaded.streamVersion {
                // Who may do this, and whether the rules could ever take it, come before which
                // version it is based on: a caller the rules forbid the change (a shared goal's
                // member editing it) hears 403, and a change they refuse (a target above the
                // maximum) 422, not a 412 whose reload cannot help.
                do {
                    _ = try D.decide(loaded.state, command, time)
                } catch let error as any ProblemDescribing where error.holdsAtAnyVersion {
                    throw error
                } catch {}
                throw ResourceError.versionMismatch(current: loaded.resourceVersion ?? loaded.streamVersion)
            }
            let decided = try D.decide(loaded.state, command, time)
            guard !decided.isEmpty else { return Decision(outcome: Outcome(appended: [], replayed: false)) { loaded.state } }
            let events = try decided.enumerated().map { index, event in
                try NewEvent(event, id: context.eventId(index), metadata: context.metadata)
            }
            do {
                let result = try await store.append(
                    to: stream, expected: loaded.streamVersion == 0 ? .noStream : .exact(loaded.streamVersion), events: events, also: also)
                let outcome = Outcome(appended: result.replayed ? [] : result.events, replayed: result.replayed)
                let base = loaded.state
                return Decision(outcome: outcome) { result.replayed ? nil : D.fold(decided, from: base) }
            } catch EventStoreError.wrongExpectedVersion where attempt < maxAttempts {
                // Someone else's append won: decide again on what it left. Each lost race means
                // another writer made progress, so this ends; the growing, jittered pause spreads
                // a crowd of writers of one stream out (up to 20 ms).
                try await Task.sleep(for: .microseconds(Int.random(in: 0...min(20_000, 250 * attempt * attempt))))
            } catch EventStoreError.wrongExpectedVersion {
                throw ResourceError.conflict("The resource is changing too fast to apply this change; try again.")
            }
        }
    }
}
