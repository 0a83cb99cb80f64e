import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Projections
import Prometheus

/// Everything the HTTP application needs, built once: the composition root. It makes the one
/// event store (with every area's inline projectors and the configured logger) and hands it,
/// with the clock and the logger, to every area.
public struct AppDependencies: Sendable {
    public var client: PostgresClient
    public var store: PostgresEventStore
    public var accounts: AccountService
    public var areas: [any Area]
    /// The phone apps served in their own formats (`ClientCatalog`).
    public var clients: [any ClientAdapter]
    public var clock: any WallClock
    public var migrator: Migrator
    public var projectors: [any Projector]
    public var metrics: PrometheusCollectorRegistry
    public var maxBodyBytes: Int
    public var maxIngestBytes: Int
    public var readinessTimeout: Duration
    public var edge: EdgeLimits
    public var logger: Logger
    /// Every service, built once: the areas, the apps' adapters, Today and the reminder job share them.
    public let services: Services
    /// When a shutdown began: requests still running near its end are answered 503.
    public let shutdown: ShutdownDeadline
    /// The signed-in clients' live changes (`GET /api/v1/events/stream`): a service `serve` runs.
    public let changeFeed: ChangeFeed
    /// The proxies whose `X-Forwarded-For` names the client the throttles count (`TRUSTED_PROXIES`).
    public var trustedProxies: TrustedProxies
    /// The dashboard's files, served at `/` (nil when they are missing beside the executable).
    public var dashboard: DashboardFiles? = DashboardFiles.bundled

    public init(
        client: PostgresClient, keys: [SigningKey], clock: any WallClock, migrator: Migrator, logger: Logger,
        hasher: PasswordHasher = PasswordHasher(), metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        maxBodyBytes: Int = 1_048_576, maxIngestBytes: Int = 33_554_432, readinessTimeout: Duration = .seconds(2),
        allowPrivateWebhooks: Bool = false, edge: EdgeLimits = EdgeLimits(), registrationsPerAddress: Int = 10,
        trustedProxies: TrustedProxies = .none,
        cancelStatementsAtShutdown: @escaping @Sendable () async -> Void = {},
        changeFeedListener: PostgresConnection.Configuration? = nil, changeFeedPoll: Duration = .seconds(1),
        appendConnections: AppendConnections? = nil
    ) async throws {
        let projectors = AreaCatalog.projectors
        let store = PostgresEventStore(
            client: client, keyring: try OwnerKeyring(signingKeys: keys), hook: InlineProjections(projectors: projectors), logger: logger,
            appendConnections: appendConnections)
        let tokens = try await AccessTokens(keys: keys, clock: clock)
        let accounts = try await AccountService(
            store: store, tokens: tokens, hasher: hasher, clock: clock, logger: logger, registrationsPerAddress: registrationsPerAddress)
        let services = Services(store: store, clock: clock, sealer: accounts.secretSealer, logger: logger,
                                readWait: edge.readWait, allowPrivateWebhooks: allowPrivateWebhooks)
        self.services = services
        shutdown = ShutdownDeadline(grace: edge.shutdownGrace, cancelStatements: cancelStatementsAtShutdown)
        changeFeed = ChangeFeed(client: client, listener: changeFeedListener, pollInterval: changeFeedPoll, logger: logger)
        let context = AreaContext(store: store, clock: clock, logger: logger, accounts: accounts, services: services,
                                  changeFeed: changeFeed, shutdown: shutdown)
        self.client = client
        self.store = store
        self.accounts = accounts
        self.areas = AreaCatalog.areas.map { $0.init(context) }
        self.clients = ClientCatalog.adapters.map { $0.init(context) }
        self.clock = clock
        self.migrator = migrator
        self.projectors = projectors
        self.metrics = metrics
        self.maxBodyBytes = maxBodyBytes
        self.maxIngestBytes = maxIngestBytes
        self.readinessTimeout = readinessTimeout
        self.edge = edge
        self.trustedProxies = trustedProxies
        self.logger = logger
    }
}

public func buildRouter(_ dependencies: AppDependencies, routes: RouteTable = RouteTable()) -> Router<AppRequestContext> {
    // HEAD on every GET route: the GET's status and headers (Content-Length, ETag), no body.
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    // Metrics outermost: they count the answer as sent (a 401 as 401), after every error has
    // become its problem+json; inside ProblemMiddleware they saw errors and counted most as 500.
    router.middlewares.add(MetricsMiddleware())
    // Every answer, problems included, carries the browser's security headers (CSP, nosniff, …).
    router.middlewares.add(BrowserHeadersMiddleware())
    router.middlewares.add(ProblemMiddleware(routes: routes))
    // Before anything that counts by address (registration, login and pairing throttles).
    router.middlewares.add(ClientAddressMiddleware(proxies: dependencies.trustedProxies))
    // The dashboard's files (`/`, `/sw.js`, `/assets/…`): no database, no credential.
    router.middlewares.add(DashboardMiddleware(files: dependencies.dashboard))
    // Before the body is read (a stalled upload is answered at a shutdown) and before anything
    // that reads the database (authentication included).
    router.middlewares.add(DatabaseWaitMiddleware(
        limit: dependencies.edge.databaseWait, probe: DatabaseProbe(client: dependencies.client, logger: dependencies.logger),
        shutdown: dependencies.shutdown))
    router.middlewares.add(BodyLimitMiddleware(limit: dependencies.maxBodyBytes, ingestionLimit: dependencies.maxIngestBytes))
    router.middlewares.add(AuthMiddleware(sessions: dependencies.accounts.sessions))
    router.middlewares.add(UserLanguageMiddleware(profiles: dependencies.accounts.profiles))
    HealthRoutes(client: dependencies.client, migrator: dependencies.migrator, readinessTimeout: dependencies.readinessTimeout)
        .register(on: router)
    MetricsRoutes(client: dependencies.client, registry: dependencies.metrics, projectors: dependencies.projectors)
        .register(on: router)
    // Idempotency-Key per area, after authentication: the area says whether its commands rerun safely.
    let idempotency = { (rerunsSafely: Bool) in
        IdempotencyMiddleware(client: dependencies.client, clock: dependencies.clock, maxBodyBytes: max(dependencies.maxBodyBytes, dependencies.maxIngestBytes),
                              fingerprintKeys: dependencies.accounts.requestFingerprintKeys, rerunsSafely: rerunsSafely)
    }
    let api = router.group("api/v1")
    for area in dependencies.areas { area.register(on: api.group().add(middleware: idempotency(type(of: area).commandsRerunSafely))) }
    // The apps' uploads are ingestion commands, whose ids their keys derive.
    for client in dependencies.clients { client.register(on: router.group().add(middleware: idempotency(true))) }
    let document = OpenAPIDocument.yaml
    router.get("/openapi.yaml") { request, _ in
        // text/yaml only for a client that asks for it and not for the registered type.
        let accept = request.headers[.accept]?.lowercased() ?? ""
        let type = accept.contains("text/yaml") && !accept.contains("application/yaml") ? "text/yaml" : "application/yaml"
        return Response(status: .ok, headers: [.contentType: "\(type); charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: document)))
    }
    routes.load(from: router)
    return router
}

/// The HTTP application. Long-lived services (the database client, the async projectors) are
/// run beside it by the caller, in one ServiceGroup.
public func buildApplication(
    _ dependencies: AppDependencies, host: String = "127.0.0.1", port: Int = 8080
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(dependencies),
        server: .guardedHTTP1(dependencies.edge),
        configuration: .init(address: .hostname(host, port: port), serverName: "lifelog"),
        logger: dependencies.logger)
}

/// The account service alone, over an event store with every inline projector: for the CLI.
public func makeAccountService(client: PostgresClient, keys: [SigningKey], clock: any WallClock, hasher: PasswordHasher = PasswordHasher(), logger: Logger) async throws -> AccountService {
    let store = PostgresEventStore(
        client: client, keyring: try OwnerKeyring(signingKeys: keys), hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
    let tokens = try await AccessTokens(keys: keys, clock: clock)
    return try await AccountService(store: store, tokens: tokens, hasher: hasher, clock: clock, logger: logger)
}
