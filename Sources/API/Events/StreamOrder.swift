import EventStore

/// What the change stream does with a live change, given the last position it sent and the
/// catch-up it began with. The live feed is subscribed before the catch-up is read, so a change
/// can come twice: once read, once live. A change older than the last one sent that was not
/// sent before means the feed delivered out of order (a fault: the stream once lost changes
/// that way): it is sent anyway, and logged, because a client that refetches twice is better off
/// than one that never hears of a change.
enum StreamOrder: Equatable {
    case send
    case duplicate
    case outOfOrder

    static func of(_ position: LogPosition, last: LogPosition?, caughtUp: Set<LogPosition>) -> StreamOrder {
        guard let last, position <= last else { return .send }
        return position == last || caughtUp.contains(position) ? .duplicate : .outOfOrder
    }
}
