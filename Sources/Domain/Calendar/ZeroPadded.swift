extension String {
    /// `value` in decimal, zero-padded to at least `width` digits (`7` → `"07"`). Dates and times
    /// are printed for every row of every list; `String(format:)` goes through CoreFoundation's
    /// formatter on Linux and took 8 % of the server's time answering the savings overview.
    public init(zeroPadded value: Int, width: Int) {
        let digits = String(value.magnitude)
        let padding = String(repeating: "0", count: Swift.max(0, width - digits.count))
        self = (value < 0 ? "-" : "") + padding + digits
    }
}
