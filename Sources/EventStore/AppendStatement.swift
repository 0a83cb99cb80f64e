import Foundation
import PostgresNIO

/// The call of `lifelog_append`, prepared once per connection: every append then skips the
/// server's parse and plan of the same text (sequential appends went from 1,850 to 2,050 a
/// second through pgbench on this machine, issue 10).
struct AppendStatement: PostgresPreparedStatement {
    static let name = "lifelog_append_v1"
    static let sql = """
        SELECT out_global_position, out_stream_version, out_transaction_id, out_recorded_at, out_replayed
        FROM lifelog_append($1, $2, $3, $4::bigint, $5::uuid[], $6::text[], $7::smallint[], $8::text[]::jsonb[], $9::text[]::jsonb[])
        """
    typealias Row = (Int64, Int64, String, Date, Bool)

    var streamId: String
    var ownerId: UUID
    var streamType: String
    var expected: Int64?
    var eventIds: [UUID]
    var types: [String]
    var schemaVersions: [Int16]
    var data: [String]
    var metadata: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        bindings.append(streamId)
        bindings.append(ownerId)
        bindings.append(streamType)
        bindings.append(expected)
        bindings.append(eventIds)
        bindings.append(types)
        bindings.append(schemaVersions)
        bindings.append(data)
        bindings.append(metadata)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
