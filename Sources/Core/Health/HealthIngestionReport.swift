import Domain
import EventStore

/// The answer to an ingestion request: what happened to each item, by count.
public struct HealthIngestionReport: Sendable, Equatable {
    public var received: Int
    public var inserted: Int
    public var updated: Int
    public var duplicates: Int
    public var deleted: Int
    public var rejected: Int
    public var skipped: Int
    public var errors: [HealthItemError]
    /// Pass as `min_position` to read this write; nil when the user has no health data at all.
    public var position: LogPosition?
}
