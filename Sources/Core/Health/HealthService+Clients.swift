import Domain
import EventStore
import Foundation
import Projections

/// What the phone apps' adapters read besides the native reads (issue 27).
extension HealthService {
    /// Of the client's ids, those the user has an item for (GymDashSync asks before it sends).
    public func storedUUIDs(_ owner: UUID, uuids: [String]) async throws -> Set<String> {
        try await health.storedUUIDs(owner, uuids: uuids.compactMap(HealthIntakeRules.normalizedUUID))
    }

    /// Every metric's span of days, and the nights'.
    public func spans(_ owner: UUID) async throws -> (metrics: [HealthReadModel.MetricSpan], nights: (days: Int, first: LocalDate, last: LocalDate)?) {
        try await health.spans(owner)
    }

    /// A positive number naming where in the log an upload is stored: its last event's
    /// position, or when it stored nothing new, the newest position of the user's events.
    public func receipt(_ owner: UUID, _ report: HealthIngestionReport) async throws -> Int64 {
        if let position = report.position?.globalPosition, position > 0 { return position }
        return max(1, try await health.lastPosition(ofOwner: owner) ?? 1)
    }
}
