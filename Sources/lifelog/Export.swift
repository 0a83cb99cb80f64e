import ArgumentParser
import Core
import Foundation
import Projections

/// `lifelog export --email E > file.ndjson`: the account's whole export, as `GET /api/v1/export`
/// gives it, on standard output; on a terminal, the count of lines so far on standard error.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write everything an account owns to standard output as NDJSON (the format of GET /api/v1/export).")
    @Option(help: "The account's email.") var email: String

    func run() async throws {
        let configuration = try Environment.configuration()
        let logger = Environment.logger("lifelog.export", level: .warning)
        let email = self.email
        let terminal = isatty(2) == 1
        let lines = try await Environment.withOwnerClient(configuration, logger: logger) { client in
            guard let userId = try await AccountsReadModel(client: client, logger: logger).userId(email: email) else {
                throw CLIError("no account has this email")
            }
            let exports = ExportService(store: ExportStore(client: client, logger: logger), clock: SystemClock())
            var written = 0
            var lastDrawn = ContinuousClock.now
            return try await exports.export(userId) { chunk in
                FileHandle.standardOutput.write(Data(chunk.utf8))
                written += chunk.utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                if terminal, ContinuousClock.now - lastDrawn > .milliseconds(250) {
                    lastDrawn = .now
                    FileHandle.standardError.write(Data("\rexported \(written) lines".utf8))
                }
            }
        }
        if terminal { FileHandle.standardError.write(Data("\rexported \(lines) lines\n".utf8)) }
    }
}
