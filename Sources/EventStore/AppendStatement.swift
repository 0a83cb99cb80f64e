import Foundation
import PostgresNIO

/// What both append functions take: the stream, the expected version and the batch.
struct AppendArguments: Sendable {
    var streamId: String
    var ownerId: UUID
    var streamType: String
    var expected: Int64?
    var eventIds: [UUID]
    var types: [String]
    var schemaVersions: [Int16]
    var data: [String]
    var metadata: [String]

    func bindings() -> PostgresBindings {
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

    /// The call of `function`, with the arguments as parameters.
    static func sql(_ function: String) -> String {
        """
        SELECT out_global_position, out_stream_version, out_transaction_id, out_recorded_at, out_replayed
        FROM \(function)($1, $2, $3, $4::bigint, $5::uuid[], $6::text[], $7::smallint[], $8::text[]::jsonb[], $9::text[]::jsonb[])
        """
    }
}

/// An append's call, prepared once per connection: every append then skips the server's parse
/// and plan of the same text (sequential appends went from 1,850 to 2,050 a second through
/// pgbench on this machine, issue 10).
protocol AppendCall: PostgresPreparedStatement where Row == (Int64, Int64, String, Date, Bool) {
    var arguments: AppendArguments { get }
}

extension AppendCall {
    func makeBindings() throws -> PostgresBindings { arguments.bindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// `lifelog_append_fresh` (schema/0018): the first attempt, without the replay check.
struct FreshAppendStatement: AppendCall {
    static let name = "lifelog_append_fresh_v1"
    static let sql = AppendArguments.sql("lifelog_append_fresh")
    var arguments: AppendArguments
}

/// `lifelog_append`: a re-sent batch answers with what is stored, a conflict with its error.
struct AppendStatement: AppendCall {
    static let name = "lifelog_append_v1"
    static let sql = AppendArguments.sql("lifelog_append")
    var arguments: AppendArguments
}
