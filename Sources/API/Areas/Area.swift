import Core
import Domain
import EventStore
import Hummingbird
import Logging
import Projections

/// What every area is given: the one event store (with every area's inline projectors), the
/// injected clock, the configured logger, the accounts service that authenticates every
/// request, and the server's services, built once (`Services`): an area takes its own from them.
public struct AreaContext: Sendable {
    public var store: PostgresEventStore
    public var clock: any WallClock
    public var logger: Logger
    public var accounts: AccountService
    public var services: Services
    /// What changed, for the event stream (`EventStreamArea`); `serve` runs it as a service.
    public var changeFeed: ChangeFeed
    /// When a shutdown began: long answers (the event stream) end then.
    public var shutdown: ShutdownDeadline
}

/// One area of the API (accounts, habits, tasks, …) and everything it adds to the server: its
/// read models, its routes and its part of the OpenAPI document. Its errors adopt
/// `ProblemDescribing`, which maps them to problem+json; nothing central grows per area.
///
/// Adding an area is its folders (`Domain/X`, `Projections/X`, `Core/X`, `API/X`), a
/// migration, a YAML file in `API/OpenAPI`, and one line in `AreaCatalog.areas`.
public protocol Area: Sendable {
    /// The area's name, as in its folders.
    static var name: String { get }
    /// Its read models, inline or async.
    static var projectors: [any Projector] { get }
    /// Its part of the OpenAPI document: a file in `Sources/API/OpenAPI`, without `.yaml`.
    static var openAPIPart: String { get }
    /// Whether a retry may run one of its POSTs again while the first attempt still runs
    /// (`IdempotencyMiddleware`): true when its work is commands whose ids the key derives, so a
    /// second run finishes, never repeats, the first. Accounts says false: its routes do security
    /// work beside the log (a password hash, a session, a pairing code), and a retry waits.
    static var commandsRerunSafely: Bool { get }
    init(_ context: AreaContext)
    /// Registers its routes under `/api/v1`.
    func register(on api: RouterGroup<AppRequestContext>)
}

extension Area {
    public static var commandsRerunSafely: Bool { true }
}

/// The areas the server runs, in the order their routes and documents are listed.
public enum AreaCatalog {
    public static let areas: [any Area.Type] = [
        AccountsArea.self,
        HabitsArea.self,
        TasksArea.self,
        FinanceArea.self,
        SavingsArea.self,
        HealthArea.self,
        LabelsArea.self,
        RemindersArea.self,
        TodayArea.self,
        EventStreamArea.self,
        ExportArea.self,
        ImportArea.self,
    ]

    /// Every projector lifelog runs: the log's own, then each area's.
    public static var projectors: [any Projector] {
        ProjectionCatalog.infrastructure + areas.flatMap { $0.projectors }
    }

    public static func projector(named name: String) -> (any Projector)? {
        projectors.first { $0.name == name }
    }
}
