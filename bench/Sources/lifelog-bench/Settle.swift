import EventStore
import Foundation
import Logging
import PostgresNIO

/// After seeding, before measuring: `VACUUM (ANALYZE)` and `CHECKPOINT` on the server's database.
/// The seed inserts years of history in a few minutes; left alone, autovacuum and the
/// checkpointer work through those rows during the first measured scenarios and share the two
/// cores with them. A real user's history is years old and long since vacuumed, so the figures
/// are taken on a settled database. Without a database URL (a server elsewhere) nothing is done.
enum Settle {
    static func database(_ rawURL: String, logger: Logger) async throws {
        guard !rawURL.isEmpty else {
            print("settle: no DATABASE_URL; measuring right after the seed")
            return
        }
        let started = ContinuousClock.now
        let url = try DatabaseURL(parsing: rawURL)
        try await PostgresClient.withRunning(url.clientConfiguration(maximumConnections: 1), logger: logger) { client in
            try await client.run("VACUUM (ANALYZE)", logger: logger)
            try await client.run("CHECKPOINT", logger: logger)
        }
        print(String(format: "settled (VACUUM ANALYZE, CHECKPOINT) in %.1f s", seconds(ContinuousClock.now - started)))
    }
}
