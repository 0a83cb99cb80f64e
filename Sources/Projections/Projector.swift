import Domain
import EventStore
import Logging
import PostgresNIO

public enum ProjectorMode: String, Sendable {
    /// Runs inside the append's transaction: a writer reads its own write.
    case inline
    /// Follows the log gap-safely in batches, with a checkpoint.
    case async
}

/// Turns events into rows of read-model tables.
///
/// SQL in `apply` names its tables unqualified: a rebuild points `search_path` at a shadow schema
/// so the same code fills fresh copies beside the live tables.
public protocol Projector: Sendable {
    var name: String { get }
    var mode: ProjectorMode { get }
    /// The read-model tables this projector owns, in creation order.
    var tables: [String] { get }
    /// The event types it reads; nil for every event.
    var eventTypes: [String]? { get }
    /// Events per batch when it runs async.
    var batchSize: Int { get }
    /// When async, the least time between two rounds of work. Zero (the default) works on
    /// every wake-up. A projector whose output only a minute-by-minute job reads can wait, so it
    /// does not add a commit per event to a busy log.
    var pace: Duration { get }
    /// Applies a batch in log order. Must give the same rows however the log is cut into batches.
    func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws
    /// The same, for a projector that reads more of the log than its batch (a request's other
    /// events): `keyring` opens their sealed payloads. Every runner calls this one; by default
    /// it is the one above.
    func apply(_ events: [RecordedEvent], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws
    /// The same rows written by the append's own statement, for an inline projector whose rows
    /// follow from the events' envelopes (nil: run `apply` in the append's transaction).
    /// Rebuilds and tests still run `apply`, so both must write the same rows. Only the log's
    /// own projectors (`ProjectionCatalog.infrastructure`) may have one: an erasure locks their
    /// tables before the append gate (`AppendFusion`'s lock order).
    var fusion: (any AppendFusion.Type)? { get }
}

extension Projector {
    public var batchSize: Int { 1_000 }
    public var pace: Duration { .zero }
    public var fusion: (any AppendFusion.Type)? { nil }

    public func apply(_ events: [RecordedEvent], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws {
        try await apply(events, on: connection, logger: logger)
    }

    func accepts(_ event: RecordedEvent) -> Bool {
        eventTypes.map { $0.contains(event.type) } ?? true
    }

    /// An event's payload in its current shape (upcast from the version it was stored with).
    func decode<T: Decodable>(_ type: T.Type, _ event: RecordedEvent) throws -> T {
        try EventUpcasting.decode(T.self, type: event.type, version: event.schemaVersion, json: event.data)
    }
}

/// The inline projectors, run by the event store in every append's transaction.
public struct InlineProjections: AppendHook {
    public let projectors: [any Projector]
    /// The first inline projector with a fusion runs in the append's statement; the others here.
    public let fusion: (any AppendFusion.Type)?
    let applied: [any Projector]
    /// The event types `applied` reads; nil when one of them reads every event.
    let typesWithWork: Set<String>?

    /// Always fuses what can be: a rebuild's cutover locks a fused projector's tables before the
    /// append gate, in the order only a fused append keeps (`AppendFusion`).
    public init(projectors: [any Projector]) {
        let inline = projectors.filter { $0.mode == .inline }
        let fused = inline.firstIndex { $0.fusion != nil }
        self.projectors = inline
        fusion = fused.flatMap { inline[$0].fusion }
        applied = inline.indices.filter { $0 != fused }.map { inline[$0] }
        var types: Set<String>? = []
        for projector in applied {
            guard let eventTypes = projector.eventTypes else { types = nil; break }
            types?.formUnion(eventTypes)
        }
        typesWithWork = types
    }

    public func didAppend(_ events: [RecordedEvent], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws {
        for projector in applied {
            let relevant = projector.eventTypes == nil ? events : events.filter(projector.accepts)
            if !relevant.isEmpty {
                try await projector.apply(relevant, keyring: keyring, on: connection, logger: logger)
            }
        }
    }

    public func hasWork(forTypes types: [String]) -> Bool {
        guard let typesWithWork else { return true }
        return types.contains(where: typesWithWork.contains)
    }
}
