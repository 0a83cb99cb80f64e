import ArgumentParser
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Options of the benchmarks that measure their own floor: pgbench doing the same inserts on the
/// same cluster, interleaved with lifelog's runs, so every figure is a ratio taken in one run
/// (this machine's 2 cores are shared, and absolute figures move from one minute to the next).
struct FloorOptions: ParsableArguments {
    @Option(help: "The pgbench binary; without it no floor is measured.") var pgbench: String?
    @Option(help: "The pgbench script (bench/pgbench/append.sql).") var pgbenchScript = "bench/pgbench/append.sql"
    @Option(help: "Rounds; each figure is reported as the median of the rounds.") var rounds = 3
}

/// The schema owner's side of a benchmark: CHECKPOINT before each run, the floor's table, pgbench.
struct Floor {
    let owner: PostgresClient
    let url: DatabaseURL
    let options: FloorOptions
    let logger: Logger

    static let table = "pgbench_events"

    /// The synthetic owner of bench/pgbench/append_function.sql's streams (the same literal there).
    static let functionOwner = "00000000-0000-4000-8000-0000000b0b0b"

    /// A copy of `events` with its columns, defaults, constraints and indexes, but not its triggers;
    /// and a key row for the owner pgbench appends for through the append function. Its byte is no
    /// key, so nothing can open what pgbench appends, and `serve` would refuse this database (a
    /// key no server key unwraps): bench/run gives every benchmark a fresh database of its own.
    func prepare() async throws {
        try await owner.run("CREATE TABLE IF NOT EXISTS pgbench_events (LIKE events INCLUDING ALL)", logger: logger)
        try await owner.run("""
            INSERT INTO owner_keys (owner_id, wrapped, wrapped_by) VALUES (\(Self.functionOwner)::uuid, '\\x00'::bytea, 'pgbench')
            ON CONFLICT (owner_id) DO NOTHING
            """, logger: logger)
    }

    /// Every run starts from a clean slate: dirty pages written, the next WAL record after a fresh
    /// checkpoint (so each run pays the same full-page writes).
    func checkpoint() async throws {
        try await owner.run("CHECKPOINT", logger: logger)
    }

    /// Runs pgbench: `clients` connections, each `transactions` transactions of one INSERT of
    /// `batch` rows (or of `script`, sent in `mode`). Returns rows per second (pgbench's tps
    /// without connection time × batch).
    func pgbench(clients: Int, transactions: Int, batch: Int, script: String? = nil, mode: String = "extended") async throws -> Double {
        guard let binary = options.pgbench else { throw ValidationError("--pgbench is required for the floor") }
        let arguments = [
            "-n", "-M", mode, "-c", "\(clients)", "-j", "\(min(clients, 2))", "-t", "\(transactions)",
            "-D", "v=0", "-D", "run=\(UInt32.random(in: 0...UInt32.max))", "-D", "batch=\(batch)",
            "-f", script ?? options.pgbenchScript,
            "postgresql://\(url.username)@\(url.host):\(url.port)/\(url.database)",
        ]
        let output = try await Self.runProcess(binary, arguments)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
              let tps = Double(line.dropFirst(6).prefix { $0 != " " }) else {
            throw ValidationError("pgbench printed no tps:\n\(output)")
        }
        if let failed = output.split(separator: "\n").first(where: { $0.hasPrefix("number of failed transactions: ") }),
           !failed.hasPrefix("number of failed transactions: 0 ") {
            throw ValidationError("pgbench: \(failed)")
        }
        return tps * Double(batch)
    }

    static func runProcess(_ path: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else { throw ValidationError("\(path) exited with \(status):\n\(output)") }
        return output
    }
}

/// One figure across rounds, with the floor of each round.
struct Series {
    let label: String
    var values: [Double] = []

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    /// (max − min) / median: how far the rounds disagree.
    var spread: Double { values.isEmpty || median == 0 ? 0 : ((values.max() ?? 0) - (values.min() ?? 0)) / median }

    func ratios(to floor: Series) -> [Double] { zip(values, floor.values).map { $0 / $1 } }

    func line(unit: String) -> String {
        String(format: "%@: median %.0f %@ (min %.0f, max %.0f, spread %.0f %%)", label, median, unit,
               values.min() ?? 0, values.max() ?? 0, spread * 100)
    }

    /// The ratio to the floor: the median of the rounds' ratios, and each round's.
    func ratioLine(to floor: Series, target: Double? = nil, atLeast: Double? = nil) -> String {
        let ratios = ratios(to: floor)
        let median = Series(label: "", values: ratios).median
        var text = String(format: "%@ / %@: median %.0f %% (rounds %@)", label, floor.label, median * 100,
                          ratios.map { String(format: "%.0f %%", $0 * 100) }.joined(separator: ", "))
        if let target {
            text += median >= target ? String(format: "; target ≥ %.0f %% met", target * 100)
                                     : String(format: "; target ≥ %.0f %% MISSED by %.0f points", target * 100, (target - median) * 100)
        }
        if let atLeast, let lowest = ratios.min() {
            text += lowest >= atLeast ? String(format: ", no round below %.0f %%", atLeast * 100)
                                      : String(format: ", a round at %.0f %% is below %.0f %%", lowest * 100, atLeast * 100)
        }
        return text
    }
}
