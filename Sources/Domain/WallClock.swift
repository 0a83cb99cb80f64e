import Foundation

/// The only way code learns the time. The server injects the system clock at its edge; tests
/// inject a fixed or moving one, so every rule that depends on "now" can be pinned down.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// A clock that always says the same instant, for tests and replays.
public struct FixedClock: WallClock {
    public var instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { instant }
}
