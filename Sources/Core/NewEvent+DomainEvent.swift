import Domain
import EventStore
import Foundation

extension NewEvent {
    /// The event to append for a domain fact, stored under the type its payload names.
    init<Event: DomainEvent>(_ event: Event, metadata: EventMetadata) throws {
        self.init(type: Event.type, data: try EventCoding.encode(event), metadata: metadata)
    }
}

extension EventMetadata {
    /// A change a signed-in user made.
    static func user(_ userId: UUID, device: String? = nil, requestId: String? = nil) -> EventMetadata {
        EventMetadata(actor: "user:\(userId.uuidString.lowercased())", device: device, requestId: requestId)
    }
}
