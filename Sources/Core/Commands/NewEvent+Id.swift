import Domain
import EventStore
import Foundation

extension NewEvent {
    /// The event to append for a decided fact, under the id the command path chose for it.
    init(_ event: any DomainEvent, id: UUID, metadata: EventMetadata) throws {
        try self.init(opened: event, id: id, metadata: metadata)
    }

    private init<Event: DomainEvent>(opened event: Event, id: UUID, metadata: EventMetadata) throws {
        self.init(eventId: id, type: Event.type, data: try EventCoding.encode(event), metadata: metadata)
    }
}
