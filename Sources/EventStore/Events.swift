import Foundation

/// Who and what caused an event; stored beside every event.
public struct EventMetadata: Codable, Sendable, Equatable {
    public var actor: String?
    public var device: String?
    public var correlationId: UUID?
    public var causationId: UUID?
    public var requestId: String?

    public init(actor: String? = nil, device: String? = nil, correlationId: UUID? = nil, causationId: UUID? = nil, requestId: String? = nil) {
        self.actor = actor
        self.device = device
        self.correlationId = correlationId
        self.causationId = causationId
        self.requestId = requestId
    }

    enum CodingKeys: String, CodingKey {
        case actor, device
        case correlationId = "correlation_id"
        case causationId = "causation_id"
        case requestId = "request_id"
    }
}

/// An event about to be appended. `data` is the JSON document of the event's payload.
public struct NewEvent: Sendable, Equatable {
    public var eventId: UUID
    public var type: String
    public var schemaVersion: Int16
    public var data: String
    public var metadata: EventMetadata

    public init(eventId: UUID = .random(), type: String, schemaVersion: Int16 = 1, data: String, metadata: EventMetadata = .init()) {
        self.eventId = eventId
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.metadata = metadata
    }
}

/// A stored event as read back from the log.
public struct RecordedEvent: Sendable, Equatable {
    public var position: LogPosition
    public var eventId: UUID
    public var ownerId: UUID
    public var streamId: String
    public var streamVersion: Int64
    public var type: String
    public var schemaVersion: Int16
    /// The payload as JSON text; decoding (and upcasting) is the reader's business.
    public var data: String
    public var metadataJSON: String
    public var recordedAt: Date
    /// Its owner was erased: the event keeps its place in the log (position, stream, type), and
    /// its payload can no longer be read. Readers pass over it.
    public var shredded = false

    public var globalPosition: Int64 { position.globalPosition }

    mutating func shred() {
        shredded = true
        data = "{}"
        metadataJSON = "{}"
    }

    public func metadata() throws -> EventMetadata {
        try JSONDecoder().decode(EventMetadata.self, from: Data(metadataJSON.utf8))
    }
}

/// A reader's place in the gap-safe order of the log: (transaction id, global position).
public struct LogPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var transactionId: UInt64
    public var globalPosition: Int64

    public init(transactionId: UInt64, globalPosition: Int64) {
        self.transactionId = transactionId
        self.globalPosition = globalPosition
    }

    public static let start = LogPosition(transactionId: 0, globalPosition: 0)

    public static func < (lhs: LogPosition, rhs: LogPosition) -> Bool {
        (lhs.transactionId, lhs.globalPosition) < (rhs.transactionId, rhs.globalPosition)
    }

    public var description: String { "\(transactionId)/\(globalPosition)" }
}

/// What the writer believes the stream's version to be.
public enum ExpectedVersion: Sendable, Equatable, CustomStringConvertible {
    case any
    case noStream
    case exact(Int64)

    var sqlValue: Int64? {
        switch self {
        case .any: nil
        case .noStream: 0
        case .exact(let version): version
        }
    }

    public var description: String {
        switch self {
        case .any: "any"
        case .noStream: "no stream"
        case .exact(let version): "\(version)"
        }
    }
}

/// A stream to append to: its id, whose data it is, and what kind of stream it is.
public struct StreamName: Sendable, Hashable {
    public var id: String
    public var ownerId: UUID
    public var type: String

    public init(id: String, ownerId: UUID, type: String) {
        self.id = id
        self.ownerId = ownerId
        self.type = type
    }
}

public struct AppendResult: Sendable, Equatable {
    /// The stored events in stream order (the original ones when the append was a replay).
    public var events: [RecordedEvent]
    /// True when every event id was already stored and nothing new was written.
    public var replayed: Bool
    public var streamVersion: Int64 { events.last?.streamVersion ?? 0 }
}
