import EventStore
import Logging
import PostgresNIO
import Projections
import ServiceLifecycle

/// The async projectors as a long-lived service of `lifelog serve`.
public struct ProjectionService: Service {
    let daemon: AsyncProjectionDaemon

    public init(
        client: PostgresClient, keyring: OwnerKeyring, listener: PostgresConnection.Configuration?, projectors: [any Projector],
        pollInterval: Duration, logger: Logger
    ) {
        let runners = projectors.filter { $0.mode == .async }.map {
            AsyncProjectorRunner(projector: $0, client: client, keyring: keyring, batchSize: $0.batchSize, logger: logger)
        }
        daemon = AsyncProjectionDaemon(runners: runners, listener: listener, pollInterval: pollInterval, logger: logger)
    }

    public func run() async throws {
        // Stop following the log when the group shuts down (SIGTERM, SIGINT).
        await cancelWhenGracefulShutdown {
            await daemon.run()
        }
    }
}
