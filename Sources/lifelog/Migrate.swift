import ArgumentParser
import Core
import EventStore
import Foundation

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply the schema/ migrations that are not applied yet.")

    func run() async throws {
        let configuration = try Environment.configuration()
        let logger = Environment.logger("lifelog.migrate", level: .warning)
        let migrator = try Environment.migrator(configuration)
        let applied = try await Environment.withOwnerClient(configuration, logger: logger) { client in
            try await migrator.migrate(on: client, logger: logger)
        }
        try await Environment.sealPlainEvents(configuration, logger: logger)
        if applied.isEmpty {
            print("schema is up to date (\(migrator.migrations.count) migrations)")
        } else {
            for migration in applied { print("applied \(migration.fileName)") }
        }
    }
}
