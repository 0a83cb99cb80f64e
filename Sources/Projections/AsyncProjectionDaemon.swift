import EventStore
import Logging
import PostgresNIO

/// Runs every async projector until cancelled. LISTEN/NOTIFY wakes them as soon as events commit
/// (the appending process's `ReaderWaker` sends it after the commit); a poll wakes them too, so a
/// lost notification or a dropped listener only adds delay.
public struct AsyncProjectionDaemon: Sendable {
    public static let channel = ReaderWaker.channel

    let runners: [AsyncProjectorRunner]
    let listener: PostgresConnection.Configuration?
    let pollInterval: Duration
    let logger: Logger

    public init(runners: [AsyncProjectorRunner], listener: PostgresConnection.Configuration?, pollInterval: Duration = .seconds(1), logger: Logger) {
        self.runners = runners
        self.listener = listener
        self.pollInterval = pollInterval
        self.logger = logger
    }

    public func run() async {
        guard !runners.isEmpty else { return }
        let streams = runners.map { _ in AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1)) }
        let wakeAll: @Sendable () -> Void = {
            for stream in streams { stream.continuation.yield() }
        }
        await withTaskGroup(of: Void.self) { group in
            for (runner, stream) in zip(runners, streams) {
                group.addTask { await runner.run(wakeups: stream.stream) }
            }
            group.addTask {
                while !Task.isCancelled {
                    wakeAll()
                    try? await Task.sleep(for: pollInterval)
                }
            }
            if let listener {
                group.addTask { await PostgresListener.run(listener, channel: Self.channel, logger: logger, wake: wakeAll) }
            }
            // Every child runs until cancelled; when the group is cancelled, end the streams too.
            await withTaskCancellationHandler {
                await group.waitForAll()
            } onCancel: {
                for stream in streams { stream.continuation.finish() }
            }
        }
    }
}
