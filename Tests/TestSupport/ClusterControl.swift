import Foundation

/// Starts and stops a PostgreSQL cluster of a test's own through scripts/pg.sh (tests that stop
/// the database under a running client must not stop the suite's shared cluster).
public enum ClusterControl {
    public struct Failure: Error { public var arguments: [String] }

    /// Runs `scripts/pg.sh ARGUMENTS`; its output goes to a file, since a server it starts
    /// outlives it. Returns what it printed (for `start`, the cluster's URL).
    public static func run(_ arguments: String...) async throws -> String {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [TestDatabase.packageRoot.appendingPathComponent("scripts/pg.sh").path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        guard process.terminationStatus == 0 else { throw Failure(arguments: arguments) }
        return try String(contentsOf: outputFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
