import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Reads the phone apps' adapters make (issue 27) beyond the native health reads: which of a
/// client's ids lifelog holds, the span of each metric's days, and the receipt of an upload.
extension HealthReadModel {
    /// Of `uuids` (as ingestion normalises them), those the user has an item for.
    public func storedUUIDs(_ owner: UUID, uuids: [String]) async throws -> Set<String> {
        guard !uuids.isEmpty else { return [] }
        var found = Set<String>()
        let rows = try await client.rows("""
            SELECT r.uuid FROM unnest(\(uuids)::text[]) AS u(uuid),
              LATERAL (SELECT uuid FROM rm_health_records h WHERE h.owner_id = \(owner) AND h.uuid = u.uuid LIMIT 1) r
            """, logger: logger)
        for try await uuid in rows.decode(String.self) { found.insert(uuid) }
        return found
    }

    /// One metric's days: how many have a figure, the first and the last.
    public struct MetricSpan: Sendable, Equatable {
        public var metric: HealthMetric
        public var days: Int
        public var first: LocalDate
        public var last: LocalDate
    }

    /// The span of every metric with days, and of the nights (`nights`; nil without any).
    public func spans(_ owner: UUID) async throws -> (metrics: [MetricSpan], nights: (days: Int, first: LocalDate, last: LocalDate)?) {
        var metrics: [MetricSpan] = []
        var nights: (Int, LocalDate, LocalDate)?
        let rows = try await client.rows("""
            SELECT metric, count(*)::int, min(date)::text, max(date)::text FROM rm_health_daily WHERE owner_id = \(owner) GROUP BY metric
            UNION ALL
            SELECT '', count(*)::int, min(date)::text, max(date)::text FROM rm_health_sleep WHERE owner_id = \(owner) HAVING count(*) > 0
            """, logger: logger)
        for try await (name, count, first, last) in rows.decode((String, Int32, String, String).self) {
            guard let first = LocalDate(first), let last = LocalDate(last) else { continue }
            if name.isEmpty {
                nights = (Int(count), first, last)
            } else if let metric = HealthMetric(rawValue: name) {
                metrics.append(MetricSpan(metric: metric, days: Int(count), first: first, last: last))
            }
        }
        return (metrics.sorted { $0.metric.rawValue < $1.metric.rawValue }, nights)
    }

    /// The newest position of the log among the user's events (any stream): what an upload that
    /// stored nothing new is stored up to. Nil only for a user with no events at all.
    public func lastPosition(ofOwner owner: UUID) async throws -> Int64? {
        let rows = try await client.rows("SELECT max(global_position) FROM events WHERE owner_id = \(owner)", logger: logger)
        for try await position in rows.decode(Int64?.self) { return position }
        return nil
    }
}
