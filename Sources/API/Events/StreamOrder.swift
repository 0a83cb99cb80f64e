import EventStore

/// What the change stream does with a live change. The live feed is subscribed before the
/// catch-up is read, and on a resume another instance's feed may not have reached the client's
/// `Last-Event-ID` yet, so a change can come again: at or before the position the client resumed
/// after, or one this stream has sent. Those are skipped. A change older than the last one sent
/// that was never sent means the feed delivered out of order (a fault: the stream once lost
/// changes that way): it is sent anyway, without an `id:` (the client's resume point stays the
/// newest), and logged, because a client that refetches once more is better off than one that
/// never hears of a change.
struct StreamOrder: Sendable {
    enum Choice: Equatable {
        case send
        case duplicate
        case outOfOrder
    }

    /// The position the client resumed after: everything up to it, it has.
    let resumedAfter: LogPosition?
    /// The newest position sent.
    private(set) var last: LogPosition?
    /// The positions sent most recently (the catch-up's and the live ones), at most `memory`.
    private var recent: Set<LogPosition> = []
    private var order: [LogPosition] = []
    private let memory: Int

    init(resumedAfter: LogPosition?, memory: Int = 1_024) {
        self.resumedAfter = resumedAfter
        self.memory = memory
    }

    /// The choice for `position`, remembering it when it is to be sent.
    mutating func take(_ position: LogPosition) -> Choice {
        if let resumedAfter, position <= resumedAfter { return .duplicate }
        if let last, position <= last {
            guard !recent.contains(position), position != last else { return .duplicate }
            remember(position)
            return .outOfOrder
        }
        last = position
        remember(position)
        return .send
    }

    /// Marks a position as sent without a choice (the catch-up, written before the live feed).
    mutating func sent(_ position: LogPosition) {
        if last.map({ position > $0 }) ?? true { last = position }
        remember(position)
    }

    private mutating func remember(_ position: LogPosition) {
        guard recent.insert(position).inserted else { return }
        order.append(position)
        if order.count > memory {
            recent.remove(order.removeFirst())
        }
    }
}
