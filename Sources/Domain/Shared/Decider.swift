import Foundation

/// What a decision may know of "now": the instant, and the user's logical today (DESIGN §4).
public struct DecisionTime: Sendable, Equatable {
    public var instant: Date
    public var today: LocalDate
    public init(instant: Date, today: LocalDate) {
        self.instant = instant
        self.today = today
    }
}

/// The shape every area's rules take. `decide` says what happens when `command` meets `state`
/// at `now`: the events to store (none for a command that changes nothing), or a typed error.
/// `evolve` is what an event does to the state. Both are pure: no clock, no I/O, so the rules
/// are tested as given (events), when (command), then (events or error), without a database.
public protocol Decider {
    associatedtype State: Sendable
    associatedtype Command: Sendable
    static var initial: State { get }
    static func decide(_ state: State, _ command: Command, _ now: DecisionTime) throws -> [any DomainEvent]
    static func evolve(_ state: State, _ event: any DomainEvent) -> State
}

extension Decider {
    /// The state after `events`, from the initial one.
    public static func fold(_ events: [any DomainEvent], from state: State = initial) -> State {
        events.reduce(state, evolve)
    }
}
