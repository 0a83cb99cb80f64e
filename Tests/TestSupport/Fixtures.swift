import EventStore
import Foundation
import PostgresNIO
import Projections
import Synchronization

/// A small seeded generator, so a failing concurrency run can be repeated with its seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A small deterministic generator for the decision-state property tests (`TaskDecisionStateTests`
/// and the others): the same seed, the same command sequences.
public struct CommandSequenceRandom: Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    /// A number in 0..<upper.
    public mutating func next(_ upper: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(upper))
    }
}

public enum Fixtures {
    public static func stream(_ kind: String = "test", owner: UUID = UUID(), id: UUID = UUID()) -> StreamName {
        StreamName(id: "\(kind)-\(id.uuidString.lowercased())", ownerId: owner, type: kind)
    }

    public static func event(_ payload: [String: Int] = ["n": 1], type: String = "test.happened", id: UUID = UUID()) -> NewEvent {
        let body = payload.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
        return NewEvent(eventId: id, type: type, data: "{\(body)}", metadata: EventMetadata(actor: "test"))
    }
}

/// A flag one task raises and others read.
public final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    public init() {}
    public func raise() { value.store(true, ordering: .releasing) }
    public var isRaised: Bool { value.load(ordering: .acquiring) }
}

extension LogPosition {
    /// True when the log holds nothing after this position, frontier or not.
    public func isEndOfLog(client: PostgresClient) async throws -> Bool {
        let rows = try await client.query("""
            SELECT NOT EXISTS (SELECT 1 FROM events
              WHERE (transaction_id, global_position) > (\(String(transactionId))::xid8, \(globalPosition)))
            """)
        for try await value in rows.decode(Bool.self) { return value }
        return false
    }
}

public enum CatchUp {
    public struct TimedOut: Error, CustomStringConvertible {
        public let projector: String
        public var description: String { "async projector \(projector) did not reach the end of the log within 30 s" }
    }

    /// Catches an async projector up with the whole log. Other databases' transactions on the
    /// shared test cluster can hold the snapshot frontier back for a moment, so one pass is not
    /// always the end.
    public static func fully(_ runner: AsyncProjectorRunner) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            try await runner.catchUp()
            if try await !runner.hasUnreadEvents() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TimedOut(projector: runner.projector.name)
    }
}

/// The wall clock of `zone` at an instant the API wrote (RFC 3339), as `YYYY-MM-DDTHH:MM`: read
/// with Foundation's own calendar, apart from the code under test.
public func wallClock(_ instant: String, in zone: String) -> String? {
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    guard let date = parser.date(from: instant) ?? plain.date(from: instant), let timeZone = TimeZone(identifier: zone) else { return nil }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = timeZone
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
    return formatter.string(from: date)
}
