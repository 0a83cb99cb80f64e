import API
import ArgumentParser
import AsyncHTTPClient
import Core
import Domain
import EventStore
import Foundation
import Logging
import Projections
import ServiceLifecycle

struct RemindersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders", abstract: "Plan and deliver reminders.",
        subcommands: [Run.self, Daemon.self, Preview.self])

    /// Runs `body` with a reminder job over the owner's connection and an HTTP client for webhooks.
    /// Every run reads the server's key: it opens the log's sealed payloads and the webhooks'
    /// sealed secrets.
    static func withJob<T: Sendable>(_ body: @escaping @Sendable (ReminderJob, ReminderPlanning) async throws -> T) async throws -> T {
        let configuration = try Environment.configuration(signingKeys: true)
        let keyring = try Environment.keyring(configuration)
        let logger = Environment.logger("lifelog.reminders", level: configuration.logLevel)
        return try await Environment.withOwnerClient(configuration, logger: logger) { client in
            let store = PostgresEventStore(
                client: client, keyring: keyring, hook: InlineProjections(projectors: AreaCatalog.projectors), logger: logger)
            let http = WebhookSender.makeClient()
            do {
                let clock = SystemClock()
                let sealer = SecretSealer(signingKeys: configuration.signingKeys)
                let services = Services(store: store, clock: clock, sealer: sealer, logger: logger, allowPrivateWebhooks: configuration.webhookAllowPrivate)
                let job = ReminderJob(store: store, http: http, planning: services.planning, allowPrivateWebhooks: configuration.webhookAllowPrivate,
                                      sealer: sealer, clock: clock, logger: logger)
                let result = try await body(job, services.planning)
                try await http.shutdown()
                return result
            } catch {
                try? await http.shutdown()
                throw error
            }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Plan the window since the last run and deliver what is due, once; for cron.",
            discussion: "When another run holds the planning lock, this one only delivers. Exits 0 unless the database fails.")

        func run() async throws {
            let report = try await RemindersCommand.withJob { job, _ in try await job.run() }
            print(report)
        }
    }

    struct Daemon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the reminder job every minute (what `serve` also does), until SIGTERM.")

        func run() async throws {
            let listener = try Environment.configuration().databaseURL.connectionConfiguration(applicationName: "lifelog-outbox-listener")
            try await RemindersCommand.withJob { job, _ in
                let logger = Environment.logger("lifelog.reminders", level: .info)
                let group = ServiceGroup(configuration: .init(
                    services: [.init(service: ReminderDaemon(job: job, logger: logger)),
                               .init(service: WebhookDeliveryDaemon(job: job, listener: listener, logger: logger))],
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
                try await group.run()
            }
        }
    }

    struct Preview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print, one JSON object a line, every reminder the planner would plan for a user in a window; stores and sends nothing.")
        @Option(help: "The account's email.") var email: String
        @Option(help: "The window's start, RFC 3339 (exclusive).") var from: String
        @Option(help: "The window's end, RFC 3339 (inclusive).") var to: String

        func run() async throws {
            guard let start = try? Date(from, strategy: .iso8601), let end = try? Date(to, strategy: .iso8601) else {
                throw CLIError("--from and --to must be RFC 3339 instants such as 2024-03-10T00:00:00Z")
            }
            guard start < end, end.timeIntervalSince(start) <= 366 * 86_400 else { throw CLIError("--to must be after --from, by at most a year") }
            let email = self.email
            let lines = try await RemindersCommand.withJob { _, planning in
                let user: ReminderUser
                do { user = try await planning.user(email: email) } catch ResourceError.notFound { throw CLIError("no account has this email") }
                return try await planning.plan(user, from: start, to: end).map(ReminderPreviewLine.json)
            }
            for line in lines { print(line) }
        }
    }
}
