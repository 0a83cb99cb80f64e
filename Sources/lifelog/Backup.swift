import API
import ArgumentParser
import EventStore
import Foundation

/// `lifelog backup FILE`: the whole database, as one consistent snapshot, while the server runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Write a consistent backup of the database (pg_dump, custom format) to FILE; the server may keep running.")

    @Argument(help: "Where to write the backup.") var file: String

    func run() async throws {
        let configuration = try Environment.configuration()
        do {
            try await DatabaseBackup.dump(configuration.databaseURL, to: file)
        } catch let failure as DatabaseBackup.Failure {
            throw CLIError(failure.description)
        }
        print("backed up \(configuration.databaseURL.database) to \(file)")
    }
}

/// `lifelog restore FILE`: a backup into an empty database, then every read model rebuilt from
/// the restored log. Start `lifelog serve` on it afterwards: it migrates a backup of an older
/// version at start, as it would the database itself.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Restore a backup made by `lifelog backup` into the empty database DATABASE_URL names, and rebuild its read models.")

    @Argument(help: "The backup file.") var file: String

    func run() async throws {
        let configuration = try Environment.configuration(signingKeys: true)
        let keyring = try Environment.keyring(configuration)
        let logger = Environment.logger("lifelog.restore", level: .warning)
        let file = self.file
        let migrator = try Environment.migrator(configuration)
        try await Environment.withOwnerClient(configuration, logger: logger) { client in
            do {
                try await DatabaseBackup.restore(configuration.databaseURL, from: file, client: client, logger: logger)
            } catch let failure as DatabaseBackup.Failure {
                throw CLIError(failure.description)
            }
            // A backup of an older version is brought up to this one first (its events sealed
            // too), so the read models are rebuilt by this version's projectors from this log.
            try await migrator.migrate(on: client, logger: logger)
            try await PlainPayloads.sealAll(client: client, keyring: keyring, logger: logger)
            try await ProjectionsCommand.Rebuild.rebuild(AreaCatalog.projectors, client: client, keyring: keyring, logger: logger)
        }
        print("restored \(file) into \(configuration.databaseURL.database)")
    }
}
