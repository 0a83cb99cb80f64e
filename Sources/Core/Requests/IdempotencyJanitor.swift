import Domain
import Logging
import Projections
import ServiceLifecycle

/// Takes expired idempotent answers away every few minutes, beside the requests rather than
/// inside one: a POST does its own work only, and the table stays small whether or not anyone
/// posts. In the same rounds it sweeps what a write in flight at an erasure stored after it
/// (accounts erased in the last day, `ErasureStore.sweepRecentlyErased`).
public struct IdempotencyJanitor: Service {
    let store: IdempotencyKeyStore
    let erasures: ErasureStore?
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    public init(
        store: IdempotencyKeyStore, erasures: ErasureStore? = nil, clock: any WallClock, interval: Duration = .seconds(600), logger: Logger
    ) {
        self.store = store
        self.erasures = erasures
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await store.expire(now: clock.now())
                try await erasures?.sweepRecentlyErased(since: clock.now().addingTimeInterval(-86_400))
            } catch {
                // The database may be away: the next round tries again.
                logger.warning("idempotency clean-up failed", metadata: ["error": "\(String(describing: error).prefix(300))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
