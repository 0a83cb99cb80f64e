import Logging
import PostgresNIO

/// LISTEN on a connection of its own (the pool cannot hold one), calling `wake` for every
/// notification on `channel`, and once each time it (re)connects, for anything sent while it was
/// away. Notifications are not stored: they only wake a reader, which then reads what is there.
/// Runs until cancelled; a lost connection is opened again with backoff.
public enum PostgresListener {
    public static func run(_ configuration: PostgresConnection.Configuration, channel: String, logger: Logger,
                           wake: @escaping @Sendable () -> Void) async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                attempt = 0
                do {
                    try await withTaskCancellationHandler {
                        try await connection.listen(on: channel) { notifications in
                            wake()  // anything sent while we were away
                            for try await _ in notifications { wake() }
                        }
                    } onCancel: {
                        let closing: EventLoopFuture<Void> = connection.close()
                        _ = closing
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { return }
                attempt += 1
                logger.warning("listener lost; polling until it is back", metadata: ["channel": "\(channel)", "error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: .milliseconds(min(5_000, 100 << min(attempt, 6))))
            }
        }
    }
}
