import Foundation
import Logging
import PostgresNIO

/// Work that must commit or fail together with an append: the inline projectors.
/// The event store calls it inside the append's transaction, after the events are stored.
public protocol AppendHook: Sendable {
    func didAppend(_ events: [RecordedEvent], keyring: OwnerKeyring, on connection: PostgresConnection, logger: Logger) async throws
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
