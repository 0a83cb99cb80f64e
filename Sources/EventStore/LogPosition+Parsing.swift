extension LogPosition {
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
