import Domain
import EventStore
import Foundation

extension CommandPath {
    /// The decision state folded from the stream's own events, and the version it was read at:
    /// for areas whose streams are short (a transaction, a user's categories), the log itself
    /// is the state, with no read model to keep in step. Another user's stream reads as no
    /// stream at all, so the decider answers 404 and If-Match reveals nothing.
    public func folded<D: Decider>(_ decider: D.Type, _ stream: StreamName) async throws -> Loaded<D.State> {
        var state = D.initial
        var version: Int64 = 0
        let page = 1_000
        while true {
            let events = try await store.readStream(stream.id, from: version + 1, limit: page)
            for event in events {
                guard event.ownerId == stream.ownerId else { return Loaded(state: D.initial, streamVersion: 0) }
                if let decoded = try D.Event(type: event.type, version: event.schemaVersion, json: event.data) {
                    state = D.evolve(state, decoded)
                }
                version = event.streamVersion
            }
            if events.count < page { return Loaded(state: state, streamVersion: version) }
        }
    }
}
