import EventStore

/// The owners' data keys the benchmarks' own stores seal with: derived from the same secret
/// `bench/run` gives the server (`JWT_SECRET`), so the server opens what a benchmark appended.
enum BenchKeys {
    static let secret = "bench-only-secret-0123456789-0123456789"

    static func keyring() throws -> OwnerKeyring {
        try OwnerKeyring(secrets: [secret])
    }
}
