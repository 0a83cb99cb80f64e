import Domain
import EventStore
import Foundation

extension CommandPath {
    /// A command decided before the one ahead of it in its stream has been appended: the next of a
    /// sequence of commands one writer sends to one stream (an import's batches), so that deciding
    /// one overlaps storing the one before, and neither waits for the other.
    public struct Ahead<D: Decider>: Sendable {
        let stream: StreamName
        let decided: [D.Event]
        let events: [NewEvent]
        /// The stream's version this command is appended at: the one the command before it leaves.
        let expected: Int64
        /// What it was decided on (an answer's counts come from it).
        public let state: D.State

        /// The stream's version once this command is appended.
        var leaves: Int64 { expected + Int64(events.count) }
    }

    /// Decides `command` to be appended right after `previous` (nil for the first of a sequence),
    /// on what `load` reads, with `previous`'s events folded in when the read did not see them
    /// yet (its append may still be running). Nothing else may write the stream in between:
    /// when something did, this or `append` throws `wrongExpectedVersion`, and the caller runs
    /// the command the ordinary way. For commands without If-Match or an Idempotency-Key (an
    /// import's): neither is looked at here, and the in-process stream queue is not taken.
    public func decideAhead<D: Decider>(
        _: D.Type, stream: StreamName, command: D.Command, context: CommandContext, time: DecisionTime,
        after previous: Ahead<D>?, load: () async throws -> Loaded<D.State>
    ) async throws -> Ahead<D> {
        let loaded = try await load()
        var state = loaded.state
        var expected = loaded.streamVersion
        if let previous {
            switch loaded.streamVersion {
            case previous.leaves: break  // its append committed before the read
            case previous.expected: state = D.fold(previous.decided, onto: state, for: command)
            default:
                throw EventStoreError.wrongExpectedVersion(stream: stream.id, expected: .exact(previous.leaves), actual: loaded.streamVersion)
            }
            expected = previous.leaves
        }
        let decided = try D.decide(state, command, time)
        let events = try decided.enumerated().map { index, event in
            try NewEvent(event, id: context.eventId(index), metadata: context.metadata)
        }
        return Ahead(stream: stream, decided: decided, events: events, expected: expected, state: state)
    }

    /// Appends a command decided ahead at exactly the version it was decided for; call it once
    /// the command before it has been appended.
    public func append<D: Decider>(_ ahead: Ahead<D>) async throws -> Outcome {
        guard !ahead.events.isEmpty else { return Outcome(appended: [], replayed: false) }
        let result = try await store.append(
            to: ahead.stream, expected: ahead.expected == 0 ? .noStream : .exact(ahead.expected), events: ahead.events)
        return Outcome(appended: result.events, replayed: result.replayed)
    }
}
