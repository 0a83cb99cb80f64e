import API
import ArgumentParser
import Core
import EventStore
import Foundation
import Hummingbird
import Logging
import Metrics
import PostgresNIO
import Projections
import Prometheus
import ServiceLifecycle

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP API with the async projectors.")

    @Flag(help: "Do not apply pending migrations on start (the server then refuses to start if any are pending).")
    var noMigrate = false

    func run() async throws {
        // Over 60 lines: the server's wiring in start order, each step a line or two.
        var loaded = try Environment.configuration(logLevel: .info, signingKeys: true)
        if noMigrate { loaded.migrateOnStart = false }
        let configuration = loaded
        let logger = Environment.logger("lifelog", level: configuration.logLevel)
        let migrator = try Environment.migrator(configuration)

        let pending = try await Environment.withOwnerClient(configuration, logger: logger) { client in
            if configuration.migrateOnStart {
                try await migrator.migrate(on: client, logger: logger)  // logs each file it applies
                return [Migration]()
            }
            return try await migrator.pending(on: client, logger: logger)
        }
        guard pending.isEmpty else {
            throw CLIError("\(pending.count) migration(s) are not applied (first: \(pending[0].fileName)); run `lifelog migrate`")
        }
        // Events stored before payloads were sealed are sealed now, and keys rewrapped.
        try await Environment.sealPlainEvents(configuration, logger: logger)
        try await Environment.rewrapOwnerKeys(try Environment.keyring(configuration), configuration, logger: logger)
        // Webhook secrets stored before they were sealed are sealed now, under this server's key.
        try await Environment.withOwnerClient(configuration, logger: logger) { client in
            let sealed = try await WebhookEndpointStore(client: client, sealer: SecretSealer(signingKeys: configuration.signingKeys), logger: logger)
                .sealStoredSecrets()
            if sealed > 0 { logger.info("sealed the webhook secrets stored in the clear", metadata: ["endpoints": "\(sealed)"]) }
        }

        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        // This process's pool by name in pg_stat_activity: its statements are cancelled when a
        // shutdown's grace is about to end, so requests waiting on them are answered (503).
        let applicationName = "lifelog-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        let client = PostgresClient(
            configuration: configuration.databaseURL.clientConfiguration(
                role: configuration.databaseRole, maximumConnections: configuration.databaseMaxConnections,
                keepAlive: configuration.databaseKeepAlive, statementTimeout: configuration.databaseStatementTimeout,
                applicationName: applicationName),
            backgroundLogger: logger)
        let databaseURL = configuration.databaseURL
        // Appends take these first, and the pool's when none is free (run in the group below).
        let appendConnections = AppendConnections(
            configuration: try databaseURL.appendConnectionConfiguration(
                role: configuration.databaseRole, statementTimeout: configuration.databaseStatementTimeout, applicationName: applicationName),
            capacity: configuration.databaseAppendConnections, keepAlive: configuration.databaseKeepAlive, logger: logger)
        let clock = SystemClock()
        // The composition root: one event store, with the configured logger, for every area. The
        // account service needs no pool to be built (its decoy hash is made on the thread pool),
        // so this happens before the group starts; the pool is used once the group runs.
        let dependencies = try await AppDependencies(
            client: client, keys: configuration.signingKeys, clock: clock, migrator: migrator, logger: logger, metrics: registry,
            maxBodyBytes: configuration.maxBodyBytes, maxIngestBytes: configuration.maxIngestBytes,
            allowPrivateWebhooks: configuration.webhookAllowPrivate, edge: configuration.edge,
            registrationsPerAddress: configuration.registrationsPerAddress, trustedProxies: configuration.trustedProxies,
            cancelStatementsAtShutdown: {
                do {
                    let cancelled = try await databaseURL.cancelStatements(ofApplication: applicationName, logger: logger)
                    logger.info("shutdown: cancelled the statements still running", metadata: ["statements": "\(cancelled)"])
                } catch {
                    logger.warning("shutdown: could not cancel the statements still running", metadata: ["error": "\(String(reflecting: error))"])
                }
            },
            changeFeedListener: try databaseURL.connectionConfiguration(applicationName: "lifelog-change-feed"),
            appendConnections: appendConnections)
        let app = buildApplication(dependencies, host: configuration.host, port: configuration.port)
        let projections = ProjectionService(
            client: client, keyring: dependencies.store.keyring, listener: try configuration.databaseURL.connectionConfiguration(),
            projectors: dependencies.projectors, pollInterval: configuration.projectorPollInterval, logger: logger)

        // Wakes every instance's async projectors after this process's appends commit.
        let waker = ReaderWaker(client: client, logger: logger)

        // The reminder job every minute, beside any `lifelog reminders` runs (they share the outbox safely).
        let http = WebhookSender.makeClient()
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: client), .init(service: appendConnections), .init(service: waker), .init(service: projections), .init(service: dependencies.changeFeed),
            .init(service: IdempotencyJanitor(store: IdempotencyKeyStore(client: client, logger: logger),
                                              erasures: ErasureStore(client: client, logger: logger), clock: clock, logger: logger)),
        ]
        if configuration.remindersInServe {
            let job = ReminderJob(store: dependencies.store, http: http, planning: dependencies.services.planning,
                                  allowPrivateWebhooks: configuration.webhookAllowPrivate,
                                  sealer: dependencies.accounts.secretSealer, clock: clock, logger: logger)
            services.append(.init(service: ReminderDaemon(job: job, logger: logger)))
            // Pushes as soon as they are due: woken at the commit that queued them.
            services.append(.init(service: WebhookDeliveryDaemon(
                job: job, listener: try databaseURL.connectionConfiguration(applicationName: "lifelog-outbox-listener"), logger: logger)))
        }
        services.append(.init(service: APIService(app: app, shutdown: dependencies.shutdown)))
        // One group: SIGTERM or SIGINT stops the HTTP server first (in-flight requests finish),
        // then the reminders, the projectors, the waker, then the pool. Whatever clients do, after
        // the grace period every service is cancelled (stalled connections are cut).
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.edge.shutdownGrace
        let group = ServiceGroup(configuration: groupConfiguration)
        logger.info("lifelog listening", metadata: ["address": "\(configuration.host):\(configuration.port)", "database": "\(configuration.databaseURL)"])
        do {
            try await group.run()
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }
}
