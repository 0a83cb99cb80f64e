/// A fact the log stores: its payload type names the event type it is stored under, so the two
/// can never be paired wrongly when an event is appended.
public protocol DomainEvent: Codable, Sendable {
    static var type: String { get }
}

/// An event that writes its own JSON, the same document `EventCoding` would write, for payloads
/// large enough that the generic encoder's cost shows (a health batch of thousands of records).
/// A test holds each such event to the generic encoder's output.
public protocol SelfEncodingEvent: DomainEvent {
    func encodedJSON() -> String
}
