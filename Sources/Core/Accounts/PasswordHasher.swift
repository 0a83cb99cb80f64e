import HummingbirdBcrypt
import NIOPosix

/// bcrypt, slow on purpose, so it runs on the NIO thread pool and not the cooperative pool.
public struct PasswordHasher: Sendable {
    public static let minimumCost: UInt8 = 12
    public let cost: UInt8
    /// New hashes (registrations, password changes) take one pool thread at a time: 40
    /// registrations at once queued ahead of every login (a correct login took 8 s instead of
    /// 0.45 s); now logins keep the other threads.
    let newHashes = AsyncGates()
    /// Where the hashing runs: the process's NIO pool, or one of its own (a test's live server
    /// that must not queue behind every other test's registrations).
    let pool: NIOThreadPool

    public init(cost: UInt8 = PasswordHasher.minimumCost, pool: NIOThreadPool = .singleton) {
        self.cost = max(cost, Self.minimumCost)
        self.pool = pool
    }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await newHashes.run("hash") {
            try await pool.runIfActive { Bcrypt.hash(password, cost: cost) }
        }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await pool.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
