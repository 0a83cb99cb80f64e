extension LogPosition {
    /// A position as `description` writes it (`transaction/global`); nil for anything else.
    public init?(text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let transaction = UInt64(parts[0]), let global = Int64(parts[1]), global >= 0 else { return nil }
        self.init(transactionId: transaction, globalPosition: global)
    }

    /// A position from a transaction id as PostgreSQL prints it (`xid8::text`). One that does
    /// not parse is an error, never 0: a reader that starts again from 0 would replay the whole
    /// log into an additive read model and count everything twice.
    public init(transactionText: String, globalPosition: Int64) throws {
        guard let transactionId = UInt64(transactionText) else { throw UnreadableTransactionId(text: transactionText) }
        self.init(transactionId: transactionId, globalPosition: globalPosition)
    }
}

/// A transaction id read from the database that is not an unsigned 64-bit number.
public struct UnreadableTransactionId: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    public var description: String { "transaction id \(text.prefix(40)) is not a number" }
}
