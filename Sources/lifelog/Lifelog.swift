import ArgumentParser
import Core
import Foundation

@main
struct Lifelog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifelog",
        abstract: "A self-hosted backend for a personal life tracker.",
        subcommands: [Serve.self, Migrate.self, ProjectionsCommand.self, UsersCommand.self, ImportCommand.self, RemindersCommand.self,
                      BackupCommand.self, RestoreCommand.self, ExportCommand.self])

    /// Every failure is one line on stderr and a non-zero exit, not a usage dump or a trace.
    static func main() async {
        // Never for `import`: it parses a file of gigabytes in its own tasks, and on the event
        // loops that parsing holds back its own database I/O (1,000,000 records: 55.2 s there,
        // 43.7 s on Swift's pool).
        if CommandLine.arguments.dropFirst().first != "import" { EventLoopExecutor.install() }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)  // --help and friends
            }
            let text = error is CLIError ? "\(error)" : Environment.databaseProblem(error) ?? message(for: error)
            FileHandle.standardError.write(Data("lifelog: \(text.isEmpty ? String(describing: error) : text)\n".utf8))
            Foundation.exit(code == .success ? 1 : code.rawValue)
        }
    }
}

/// A failure said to the operator in one line.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
