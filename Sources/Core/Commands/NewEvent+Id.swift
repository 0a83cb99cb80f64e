import Domain
import EventStore
import Foundation

extension NewEvent {
    /// The event to append for a decided fact, under the id the command path chose for it.
    init(_ event: some AreaEvent, id: UUID, metadata: EventMetadata) throws {
        let payload = event.payload
        try self.init(opened: payload, id: id, metadata: metadata)
    }

    private init<Payload: DomainEvent>(opened event: Payload, id: UUID, metadata: EventMetadata) throws {
        self.init(eventId: id, type: Payload.type, data: try EventCoding.encode(event), metadata: metadata)
    }
}
