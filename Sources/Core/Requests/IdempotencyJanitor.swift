import Domain
import Logging
import Projections
import ServiceLifecycle

/// Takes expired idempotent answers away every few minutes, beside the requests rather than
/// inside one: a POST does its own work only, and the table stays small whether or not anyone
/// posts.
public struct IdempotencyJanitor: Service {
    let store: IdempotencyKeyStore
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    public init(store: IdempotencyKeyStore, clock: any WallClock, interval: Duration = .seconds(600), logger: Logger) {
        self.store = store
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await store.expire(now: clock.now())
            } catch {
                // The database may be away: the next round tries again.
                logger.warning("idempotency clean-up failed", metadata: ["error": "\(String(describing: error).prefix(300))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
