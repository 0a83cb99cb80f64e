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
    /// Each event's payload and metadata, sealed (`SealedPayload`).
    var sealed: [ByteBuffer]

    func bindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(streamId)
        bindings.append(ownerId)
        bindings.append(streamType)
        bindings.append(expected)
        bindings.append(eventIds)
        bindings.append(types)
        bindings.append(schemaVersions)
        bindings.append(sealed)
        return bindings
    }

    /// The call of `function`, with the arguments as parameters.
    static func sql(_ function: String) -> String {
        """
        SELECT out_global_position, out_stream_version, out_transaction_id, out_recorded_at, out_replayed
        FROM \(function)($1, $2, $3, $4::bigint, $5::uuid[], $6::text[], $7::smallint[], $8::bytea[])
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

/// `lifelog_append_sealed_fresh` (schema/0025, as 0018's): the first attempt, without the replay check.
struct FreshAppendStatement: AppendCall {
    static let name = "lifelog_append_sealed_fresh_v1"
    static let sql = AppendArguments.sql("lifelog_append_sealed_fresh")
    var arguments: AppendArguments
}

/// `lifelog_append_sealed`: a re-sent batch answers with what is stored, a conflict with its error.
struct AppendStatement: AppendCall {
    static let name = "lifelog_append_sealed_v1"
    static let sql = AppendArguments.sql("lifelog_append_sealed")
    var arguments: AppendArguments
}
