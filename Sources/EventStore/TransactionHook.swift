import Foundation
import Logging
import PostgresNIO

/// Work that must commit or fail together with an append: the inline projectors.
/// The event store calls it inside the append's transaction, after the events are stored.
public protocol AppendHook: Sendable {
    func didAppend(_ events: [RecordedEvent], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws
    /// A read model the append's own statement keeps (`AppendFusion`); `didAppend` leaves it alone.
    var fusion: (any AppendFusion.Type)? { get }
    /// Whether `didAppend` has work for a batch of these types. When it has none (and nothing
    /// else joins the transaction) the append is one statement: no BEGIN and COMMIT round trips.
    func hasWork(forTypes types: [String]) -> Bool
}

extension AppendHook {
    public var fusion: (any AppendFusion.Type)? { nil }
    public func hasWork(forTypes types: [String]) -> Bool { true }
}

/// SQL run by the append's own statement, after the events are stored: an inline read model
/// that follows from the events' envelopes costs no round trip of its own (issue 30).
///
/// `sql` is one or more data-modifying CTEs, each starting with `, name AS (`, that read
/// `appended` (`out_global_position, out_stream_version, out_transaction_id, out_recorded_at,
/// out_replayed, n`, `n` the event's place in the batch) and the append's parameters: $1 stream
/// id, $2 owner id, $3 stream type, $6 the event types. A replayed batch's rows are marked
/// `out_replayed` and must be skipped, as the hook's `didAppend` is not called for them.
///
/// Lock order: such a statement locks its tables when it starts, before the append function
/// takes the append gate; every other transaction that takes the gate and then writes those
/// tables (an erasure, a rebuild's cutover) must lock them before the gate too.
public protocol AppendFusion: Sendable {
    /// Part of the prepared statement's name.
    static var name: String { get }
    static var sql: String { get }
}

/// Advisory lock keys lifelog uses, as (class, object) pairs in one namespace.
public enum AdvisoryLock {
    static let namespace: Int32 = 1_280_068_684  // "LL" ..., shared with schema/0001_event_store.sql
    /// Every append holds it shared until commit; a projection cutover takes it exclusively.
    public static let appendGate: (Int32, Int32) = (namespace, 1)
    public static let migrations: (Int32, Int32) = (namespace, 2)
    /// One projector, one leader: async batches and rebuild cutovers take the projector's key.
    public static func projector(_ name: String) -> (Int32, Int32) {
        (namespace + 1, stableHash(name))
    }
    /// One user's event webhooks change one at a time (their number is bounded).
    public static func webhooks(of userId: UUID) -> (Int32, Int32) {
        (namespace + 3, stableHash(userId.uuidString.lowercased()))
    }
    /// One rebuild of a projector at a time.
    public static func rebuild(_ name: String) -> (Int32, Int32) {
        (namespace + 2, stableHash(name))
    }

    /// FNV-1a, so the key is the same in every process (Swift's Hasher is seeded per process).
    static func stableHash(_ string: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in string.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int32(bitPattern: hash)
    }
}
