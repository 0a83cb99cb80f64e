/// A fact the log stores: its payload type names the event type it is stored under, so the two
/// can never be paired wrongly when an event is appended.
public protocol DomainEvent: Codable, Sendable {
    static var type: String { get }
}
