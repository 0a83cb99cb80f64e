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

    /// The call of `function` with `fusion`'s CTEs after it, in one statement. `appended` is
    /// materialized: the append runs once, before any CTE writes (it must be the transaction's
    /// first write), and its rows come back in the batch's order.
    static func sql(_ function: String, fusion: String) -> String {
        """
        WITH appended AS MATERIALIZED (
          SELECT a.out_global_position, a.out_stream_version, a.out_transaction_id, a.out_recorded_at, a.out_replayed, a.n
          FROM \(function)($1, $2, $3, $4::bigint, $5::uuid[], $6::text[], $7::smallint[], $8::bytea[])
               WITH ORDINALITY AS a(out_global_position, out_stream_version, out_transaction_id, out_recorded_at, out_replayed, n)
        )\(fusion)
        SELECT out_global_position, out_stream_version, out_transaction_id, out_recorded_at, out_replayed
        FROM appended ORDER BY n
        """
    }
}

/// An append's call, prepared once per connection: every append then skips the server's parse
/// and plan of the same text (sequential appends went from 1,850 to 2,050 a second through
/// pgbench on this machine, issue 10).
protocol AppendCall: PostgresPreparedStatement where Row == (Int64, Int64, String, Date, Bool) {
    /// The append function it calls.
    static var function: String { get }
    var arguments: AppendArguments { get }
}

extension AppendCall {
    func makeBindings() throws -> PostgresBindings { arguments.bindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// `lifelog_append_sealed_fresh` (schema/0025, as 0018's): the first attempt, without the replay check.
struct FreshAppendStatement: AppendCall {
    static let function = "lifelog_append_sealed_fresh"
    static let name = "lifelog_append_sealed_fresh_v1"
    static let sql = AppendArguments.sql(function)
    var arguments: AppendArguments
}

/// `lifelog_append_sealed`: a re-sent batch answers with what is stored, a conflict with its error.
struct AppendStatement: AppendCall {
    static let function = "lifelog_append_sealed"
    static let name = "lifelog_append_sealed_v1"
    static let sql = AppendArguments.sql(function)
    var arguments: AppendArguments
}

/// Either call with an `AppendFusion`'s read model kept by the same statement.
struct FusedAppendStatement<Call: AppendCall, Fusion: AppendFusion>: AppendCall {
    static var function: String { Call.function }
    static var name: String { "\(Call.name)+\(Fusion.name)" }
    static var sql: String { AppendArguments.sql(Call.function, fusion: Fusion.sql) }
    var arguments: AppendArguments
}

extension AppendArguments {
    /// The call an attempt makes: `fresh` skips the replay check; `fusion` keeps its read model in
    /// the same statement.
    func call(fresh: Bool, fusion: (any AppendFusion.Type)?) -> any AppendCall {
        guard let fusion else { return fresh ? FreshAppendStatement(arguments: self) : AppendStatement(arguments: self) }
        return fused(fusion, fresh: fresh)
    }

    private func fused<Fusion: AppendFusion>(_ fusion: Fusion.Type, fresh: Bool) -> any AppendCall {
        fresh ? FusedAppendStatement<FreshAppendStatement, Fusion>(arguments: self)
            : FusedAppendStatement<AppendStatement, Fusion>(arguments: self)
    }
}
