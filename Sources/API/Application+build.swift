import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Projections
import Prometheus

/// Everything the HTTP application needs; the executable and the tests both build one.
public struct AppDependencies: Sendable {
    public var client: PostgresClient
    public var accounts: AccountService
    public var habits: HabitService
    public var tasks: TaskService
    public var clock: any WallClock
    public var migrator: Migrator
    public var projectors: [any Projector]
    public var metrics: PrometheusCollectorRegistry
    public var maxBodyBytes: Int
    public var readinessTimeout: Duration

    public init(
        client: PostgresClient, accounts: AccountService, clock: any WallClock, migrator: Migrator, habits: HabitService? = nil, projectors: [any Projector] = ProjectionCatalog.all(),
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), maxBodyBytes: Int = 1_048_576,
        readinessTimeout: Duration = .seconds(2)
    ) {
        self.client = client
        self.accounts = accounts
        self.clock = clock
        let store = PostgresEventStore(client: client, hook: InlineProjections(projectors: projectors), logger: Logger(label: "lifelog"))
        self.habits = habits ?? HabitService(store: store, clock: clock, logger: Logger(label: "lifelog"))
        self.tasks = TaskService(store: store, clock: clock, logger: Logger(label: "lifelog"))
        self.migrator = migrator
        self.projectors = projectors
        self.metrics = metrics
        self.maxBodyBytes = maxBodyBytes
        self.readinessTimeout = readinessTimeout
    }
}

public func buildRouter(_ dependencies: AppDependencies, routes: RouteTable = RouteTable()) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.middlewares.add(ProblemMiddleware(routes: routes))
    router.middlewares.add(MetricsMiddleware())
    router.middlewares.add(BodyLimitMiddleware(limit: dependencies.maxBodyBytes))
    router.middlewares.add(AuthMiddleware(accounts: dependencies.accounts))
    router.middlewares.add(UserLanguageMiddleware(accounts: dependencies.accounts))
    router.middlewares.add(IdempotencyMiddleware(client: dependencies.client, clock: dependencies.clock, maxBodyBytes: dependencies.maxBodyBytes,
                                                    fingerprintKeys: dependencies.accounts.requestFingerprintKeys))
    HealthRoutes(client: dependencies.client, migrator: dependencies.migrator, readinessTimeout: dependencies.readinessTimeout)
        .register(on: router)
    MetricsRoutes(client: dependencies.client, registry: dependencies.metrics, projectors: dependencies.projectors)
        .register(on: router)
    AccountRoutes(accounts: dependencies.accounts).register(on: router.group("api/v1"))
    HabitRoutes(habits: dependencies.habits).register(on: router.group("api/v1"))
    TaskRoutes(tasks: dependencies.tasks).register(on: router.group("api/v1"))
    router.get("/openapi.yaml") { _, _ in
        Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
    }
    routes.load(from: router)
    return router
}

/// The HTTP application. Long-lived services (the database client, the async projectors) are
/// run beside it by the caller, in one ServiceGroup.
public func buildApplication(
    _ dependencies: AppDependencies, host: String = "127.0.0.1", port: Int = 8080, logger: Logger
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(dependencies),
        configuration: .init(address: .hostname(host, port: port), serverName: "lifelog"),
        logger: logger)
}

/// Builds the event store with every inline projector and the account service on `client`.
public func makeAccountService(client: PostgresClient, keys: [SigningKey], clock: any WallClock, hasher: PasswordHasher = PasswordHasher(), logger: Logger) async throws -> AccountService {
    let store = PostgresEventStore(client: client, hook: InlineProjections(projectors: ProjectionCatalog.all()), logger: logger)
    let tokens = try await AccessTokens(keys: keys, clock: clock)
    return try await AccountService(store: store, tokens: tokens, hasher: hasher, clock: clock, logger: logger)
}
