import Foundation
import PostgresNIO

extension PostgresEventStore {
    /// Whether an event with this id is stored, in any stream. A retried command whose ids are
    /// derived from its Idempotency-Key asks this to find its first attempt's events.
    public func isStored(eventId: UUID) async throws -> Bool {
        let rows = try await client.rows("SELECT 1 FROM events WHERE event_id = \(eventId)", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }
}
