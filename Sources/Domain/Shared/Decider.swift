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

/// One area's events: an enum with a case per event type (`HabitEvent`, `TaskEvent`, …), so a
/// decider's `evolve` is an exhaustive `switch` the compiler checks: an event a new case adds and
/// an `evolve` forgets does not compile. The log's boundary is here, once per area: what a case
/// is stored as (`payload`: its type name and JSON) and which case a stored event is
/// (`init(type:version:json:)`, upcast first).
public protocol AreaEvent: Sendable, Equatable {
    /// The payload as it is stored.
    var payload: any DomainEvent { get }
    /// A stored event of this area, upcast to its current shape; nil for a type that is not one
    /// of this area's.
    init?(type: String, version: Int16, json: String) throws
}

extension AreaEvent {
    /// The stored type name of this event.
    public var type: String { Swift.type(of: payload).type }

    /// Decodes `json` of `type` at `version` as `Payload`, upcast first: the one line each case of
    /// an area's `init(type:version:json:)` needs.
    public static func payload<Payload: DomainEvent>(_: Payload.Type, _ version: Int16, _ json: String) throws -> Payload {
        try EventUpcasting.decode(Payload.self, type: Payload.type, version: version, json: json)
    }
}

/// The shape every area's rules take. `decide` says what happens when `command` meets `state`
/// at `now`: the events to store (none for a command that changes nothing), or a typed error.
/// `evolve` is what an event does to the state. Both are pure: no clock, no I/O, so the rules
/// are tested as given (events), when (command), then (events or error), without a database.
public protocol Decider {
    associatedtype State: Sendable
    associatedtype Command: Sendable
    associatedtype Event: AreaEvent
    static var initial: State { get }
    static func decide(_ state: State, _ command: Command, _ now: DecisionTime) throws -> [Event]
    static func evolve(_ state: State, _ event: Event) -> State
    /// `state`, read for `command`'s decision, with `events` stored after it was read: what
    /// `command` is decided on. By default the fold; a decider whose state is read only in part
    /// (the items a batch could be) may keep that part.
    static func fold(_ events: [Event], onto state: State, for command: Command) -> State
}

extension Decider {
    /// The state after `events`, from the initial one.
    public static func fold(_ events: [Event], from state: State = initial) -> State {
        events.reduce(state, evolve)
    }

    public static func fold(_ events: [Event], onto state: State, for command: Command) -> State {
        fold(events, from: state)
    }
}
