import Domain
import Foundation
import Synchronization

/// A clock tests move by hand.
public final class MutableClock: WallClock, Sendable {
    private let instant: Mutex<Date>
    public init(_ start: Date = Date(timeIntervalSince1970: 1_795_000_000)) { instant = Mutex(start) }
    public func now() -> Date { instant.withLock { $0 } }
    public func advance(by seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
