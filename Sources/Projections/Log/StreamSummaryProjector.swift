import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model `rm_stream_summary`: per stream, how many events and the latest one.
public struct StreamSummaryProjector: Projector {
    public let name = "stream_summary"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_stream_summary"]
    public let eventTypes: [String]? = nil

    public init() {}

    /// Kept by the append's own statement: the HTTP write path's one inline read model for every
    /// event costs no round trip (issue 30). `apply` below writes the same rows for a rebuild.
    public var fusion: (any AppendFusion.Type)? { Fusion.self }

    /// How a batch's summary meets the row already there, in `apply` and in `Fusion` alike (a
    /// constant of this file, no input in it).
    static let merge = """
        ON CONFLICT (stream_id) DO UPDATE SET
          event_count = s.event_count + excluded.event_count,
          last_stream_version = GREATEST(s.last_stream_version, excluded.last_stream_version),
          last_event_type = CASE WHEN excluded.last_stream_version > s.last_stream_version
                                 THEN excluded.last_event_type ELSE s.last_event_type END,
          last_global_position = CASE WHEN excluded.last_stream_version > s.last_stream_version
                                      THEN excluded.last_global_position ELSE s.last_global_position END,
          last_recorded_at = CASE WHEN excluded.last_stream_version > s.last_stream_version
                                  THEN excluded.last_recorded_at ELSE s.last_recorded_at END
        """

    /// `apply`'s upsert over the append's rows: one stream, the batch's count and its last event.
    enum Fusion: AppendFusion {
        static let name = "stream_summary_v1"
        static let sql = """
            , stream_summary AS (
              INSERT INTO rm_stream_summary AS s
                (stream_id, owner_id, stream_type, event_count, last_stream_version, last_event_type,
                 last_global_position, last_recorded_at)
              SELECT $1, $2, split_part($1, '-', 1), c.event_count, l.out_stream_version,
                     ($6::text[])[l.n], l.out_global_position, l.out_recorded_at
              FROM (SELECT count(*) AS event_count FROM appended WHERE NOT out_replayed) c,
                   (SELECT * FROM appended WHERE NOT out_replayed ORDER BY out_stream_version DESC LIMIT 1) l
              \(StreamSummaryProjector.merge))
            """
    }

    struct Summary {
        var ownerId: UUID
        var count: Int64
        var last: RecordedEvent
    }

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        var byStream: [String: Summary] = [:]
        for event in events {
            if var summary = byStream[event.streamId] {
                summary.count += 1
                if event.streamVersion > summary.last.streamVersion { summary.last = event }
                byStream[event.streamId] = summary
            } else {
                byStream[event.streamId] = Summary(ownerId: event.ownerId, count: 1, last: event)
            }
        }
        // Sorted, so concurrent writers touching several rows lock them in one order.
        let summaries = byStream.sorted { $0.key < $1.key }
        let streamIds = summaries.map(\.key)
        let owners = summaries.map(\.value.ownerId)
        let counts = summaries.map(\.value.count)
        let lastTypes = summaries.map(\.value.last.type)
        let lastPositions = summaries.map(\.value.last.globalPosition)
        let lastVersions = summaries.map(\.value.last.streamVersion)
        let lastRecorded = summaries.map(\.value.last.recordedAt)
        try await connection.run("""
            INSERT INTO rm_stream_summary AS s
              (stream_id, owner_id, stream_type, event_count, last_stream_version, last_event_type,
               last_global_position, last_recorded_at)
            SELECT u.stream_id, u.owner_id, split_part(u.stream_id, '-', 1), u.event_count, u.version,
                   u.event_type, u.position, u.recorded_at
            FROM unnest(\(streamIds)::text[], \(owners)::uuid[], \(counts)::bigint[], \(lastVersions)::bigint[],
                        \(lastTypes)::text[], \(lastPositions)::bigint[], \(lastRecorded)::timestamptz[])
                 AS u(stream_id, owner_id, event_count, version, event_type, position, recorded_at)
            \(unescaped: Self.merge)
            """, logger: logger)
    }
}
