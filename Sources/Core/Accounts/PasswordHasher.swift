import HummingbirdBcrypt
import NIOPosix

/// bcrypt, slow on purpose, so it runs on the NIO thread pool and not the cooperative pool.
public struct PasswordHasher: Sendable {
    public static let minimumCost: UInt8 = 12
    public let cost: UInt8

    public init(cost: UInt8 = PasswordHasher.minimumCost) {
        self.cost = max(cost, Self.minimumCost)
    }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
