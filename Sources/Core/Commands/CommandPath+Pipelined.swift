import Domain
import EventStore
import Foundation

extension CommandPath {
    /// `decide`, for a stream whose commands come one after another in numbers (a phone's health
    /// batches): a command is decided while the one ahead of it is still being appended, on the
    /// state that one leaves (its events folded in), so that each decision overlaps the append
    /// before it. Each stream has two turns: deciding, then appending, each in arrival order, and
    /// a command holds its deciding turn until it has its appending turn, so the appends keep
    /// the decisions' order (and one decision at a time runs ahead of the appends). A command
    /// whose basis did not reach the log as decided (the one ahead failed, another writer came in
    /// between) is decided again on a fresh read in its appending turn, as `decide` would; the
    /// append at an exact version stays the guarantee.
    ///
    /// `load` must read the state and the stream's version in one snapshot. Answers the outcome
    /// and the state it was decided on (nil for a replay). An If-Match request takes `run`. Call
    /// it inside `pipelineActive(stream)`, which keeps the stream's decided commands for the
    /// reads made before they were stored.
    public func decidePipelined<D: Decider>(
        _ decider: D.Type, stream: StreamName, command: D.Command, context: CommandContext, time: DecisionTime,
        load: () async throws -> Loaded<D.State>
    ) async throws -> (outcome: Outcome, decidedOn: D.State?) {
        guard context.ifMatch == nil else {
            var decidedOn: D.State?
            var first = true
            let outcome = try await run(decider, stream: stream, command: command, context: context, time: time) {
                var loaded = try await load()
                // The caller's first read may be from before the commands ahead: If-Match is
                // compared with the stream as it is.
                if first, try await store.streamVersion(stream.id) != loaded.streamVersion { loaded = try await load() }
                first = false
                decidedOn = loaded.state
                return loaded
            }
            return (outcome, outcome.replayed ? nil : decidedOn)
        }
        return try await answeringRetries(context, stream: stream, replay: (Outcome(appended: [], replayed: true), nil)) {
            try await pipelined(decider, stream: stream, command: command, context: context, time: time, load: load)
        }
    }

    /// Keeps `stream`'s decided commands for reads made before they were stored while `body` runs.
    public func pipelineActive<T>(_ stream: StreamName, _ body: () async throws -> T) async throws -> T {
        try await pipeline.active(stream.id, body)
    }

    private func pipelined<D: Decider>(
        _ decider: D.Type, stream: StreamName, command: D.Command, context: CommandContext, time: DecisionTime,
        load: () async throws -> Loaded<D.State>
    ) async throws -> (outcome: Outcome, decidedOn: D.State?) {
        // A NUL cannot be in a stream id: this turn is no stream's.
        let decidingTurn = "\u{0}deciding\u{0}" + stream.id
        try await queue.acquire(decidingTurn)
        let decided: (state: D.State, events: [NewEvent], expected: Int64, entry: UInt64?, failures: UInt64?)
        do {
            var loaded = try await load()
            var basis = pipeline.basis(stream.id, readAt: loaded.streamVersion, fresh: false)
            if basis == nil {
                // Read before the entries the pipeline still holds: read again.
                loaded = try await load()
                basis = pipeline.basis(stream.id, readAt: loaded.streamVersion, fresh: true)
            }
            // Commands of another decider on the stream cannot be folded: then the read is taken
            // as it is, and the command decided again in its turn.
            let pending = basis?.pending.compactMap { $0 as? [D.Event] } ?? []
            if pending.count != basis?.pending.count ?? 0 { basis = nil }
            let ahead = basis == nil ? [] : pending.flatMap { $0 }
            let state = ahead.isEmpty ? loaded.state : D.fold(ahead, onto: loaded.state, for: command)
            let events = try D.decide(state, command, time)
            if events.isEmpty, ahead.isEmpty {
                queue.release(decidingTurn)
                return (Outcome(appended: [], replayed: false), state)
            }
            let expected = basis?.expected ?? loaded.streamVersion
            let newEvents = try events.enumerated().map { index, event in
                try NewEvent(event, id: context.eventId(index), metadata: context.metadata)
            }
            // Nothing to store, but only once the commands ahead are: it waits for them in the
            // appending turn (an answer must not count items as stored that are not yet).
            let entry = events.isEmpty ? nil : basis.flatMap { pipeline.push(stream.id, on: $0, leaves: expected + Int64(newEvents.count), decided: events) }
            do {
                try await queue.acquire(stream.id)
            } catch {
                if let entry { pipeline.failed(stream.id, entry) }
                throw error
            }
            decided = (state, newEvents, expected, entry, basis?.failures)
        } catch {
            queue.release(decidingTurn)
            throw error
        }
        queue.release(decidingTurn)

        // The appending turn.
        defer { queue.release(stream.id) }
        if decided.events.isEmpty, let failures = decided.failures, pipeline.failures(stream.id) == failures {
            // Every command ahead is stored as decided (none failed since): so is the state.
            return (Outcome(appended: [], replayed: false), decided.state)
        }
        if let entry = decided.entry, !pipeline.isDoomed(entry) {
            do {
                let expected = decided.expected
                let result = try await store.append(to: stream, expected: expected == 0 ? .noStream : .exact(expected), events: decided.events)
                // A replay is another attempt's events, not these: the commands decided on these decide again.
                if result.replayed { pipeline.failed(stream.id, entry) } else { pipeline.stored(stream.id, entry) }
                return (Outcome(appended: result.replayed ? [] : result.events, replayed: result.replayed), result.replayed ? nil : decided.state)
            } catch EventStoreError.wrongExpectedVersion {
                pipeline.failed(stream.id, entry)
            } catch {
                pipeline.failed(stream.id, entry)
                throw error
            }
        }
        // Decided on what is not the log: decided again on a fresh read, the ordinary way.
        var decidedOn: D.State?
        let decision = try await decideAndAppend(decider, stream: stream, command: command, context: context, time: time, also: nil) {
            let loaded = try await load()
            decidedOn = loaded.state
            return loaded
        }
        return (decision.outcome, decision.outcome.replayed ? nil : decidedOn)
    }
}
