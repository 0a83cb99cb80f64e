import Domain
import Foundation

/// The system's wall clock: the one place lifelog reads the time of day.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
