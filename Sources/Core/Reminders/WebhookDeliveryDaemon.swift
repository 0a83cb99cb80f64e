import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections
import ServiceLifecycle

/// Pushes webhooks as soon as they are due (issue 26): an event webhook within a second or two
/// of the write that caused it, a retry at its time, instead of at the reminder job's next
/// minute. It waits for a notification on `lifelog_outbox` (sent by whoever queues a due row, at
/// its commit, on every instance) or for the next row's due time, whichever comes first, and a
/// minute at most; then it delivers everything due. Any number of daemons share the outbox
/// through the claims (`FOR UPDATE SKIP LOCKED`), so each push goes out once.
public struct WebhookDeliveryDaemon: Service {
    let job: ReminderJob
    let listener: PostgresConnection.Configuration?
    let longestWait: Duration
    let logger: Logger

    public init(job: ReminderJob, listener: PostgresConnection.Configuration?, longestWait: Duration = .seconds(60), logger: Logger) {
        self.job = job
        self.listener = listener
        self.longestWait = longestWait
        self.logger = logger
    }

    public func run() async throws {
        let doorbell = CommitSignal()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                if let listener {
                    group.addTask { await PostgresListener.run(listener, channel: ReminderOutboxStore.channel, logger: logger) { doorbell.ring() } }
                }
                group.addTask { await deliverWhenDue(doorbell) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    func deliverWhenDue(_ doorbell: CommitSignal) async {
        var failures = 0
        while !Task.isCancelled {
            var wait = longestWait
            do {
                _ = doorbell.takeIfRung()
                let (delivered, failed) = try await job.deliver()
                if delivered + failed > 0 {
                    logger.debug("webhooks pushed", metadata: ["delivered": "\(delivered)", "failed": "\(failed)"])
                }
                if let next = try await job.nextAttempt() {
                    let seconds = max(0, next.timeIntervalSince(job.clock.now()))
                    wait = min(wait, .milliseconds(Int64(seconds * 1_000) + 10))
                }
                failures = 0
            } catch {
                if Task.isCancelled { return }
                failures += 1
                logger.warning("webhook delivery failed", metadata: ["error": "\(String(describing: error).prefix(300))"])
                wait = .milliseconds(min(5_000, 100 << min(failures, 6)))
            }
            // A notification, the next row's time, or the longest wait: whichever comes first.
            let delay = wait
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await doorbell.next() }
                group.addTask { try? await Task.sleep(for: delay) }
                await group.next()
                group.cancelAll()
            }
        }
    }
}
