/// Sums of minor units that cannot trap. Swift stops the process on Int64 overflow, and a client
/// may send many amounts of 12 digits; the write bounds (a goal's deposits, the totals the
/// database keeps in `bigint`) keep real sums far below the limit, and these make sure that a sum
/// past it pins at the limit instead of taking the server down.
extension Int64 {
    public func plus(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    public func minus(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}

extension Sequence where Element == Int64 {
    public var total: Int64 { reduce(0) { $0.plus($1) } }
}
