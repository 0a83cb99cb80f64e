import Crypto
import EventStore
import Foundation

/// Who asks for a change, and what of the request the change depends on.
public struct CommandContext: Sendable {
    public var userId: UUID
    /// A keyed fingerprint of the request and its Idempotency-Key; nil when none was sent.
    public var idempotencySeed: [UInt8]?
    /// The version the client's If-Match names.
    public var ifMatch: Int64?

    public init(userId: UUID, idempotencySeed: [UInt8]? = nil, ifMatch: Int64? = nil) {
        self.userId = userId
        self.idempotencySeed = idempotencySeed
        self.ifMatch = ifMatch
    }

    /// A new id for `purpose` ("habit", "event-0", …): random without an Idempotency-Key, and
    /// otherwise derived from it, so a retry of the same request creates the same ids and finds
    /// what its first attempt stored instead of doing the work again (DESIGN §2).
    public func newId(_ purpose: String) -> UUID {
        guard let seed = idempotencySeed else { return .random() }
        var message = Data(seed)
        message.append(0)
        message.append(Data(purpose.utf8))
        var bytes = Array(SHA256.hash(data: message).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // RFC 9562 version 8: made by us, not random
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // the RFC's variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    func eventId(_ index: Int) -> UUID { newId("event-\(index)") }

    var metadata: EventMetadata { .user(userId) }
}
