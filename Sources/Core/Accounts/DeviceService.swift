import Domain
import EventStore
import Foundation
import Projections

/// Device keys for ingestion-only clients, and pairing codes that let a device get one.
public struct DeviceService: Sendable {
    public static let pairingLifetime: TimeInterval = 10 * 60
    let store: AccountsStore

    /// The new device and its key, shown once. A retried request (same Idempotency-Key) that
    /// finds the device its first attempt stored answers without a key: only a hash was kept.
    public func create(_ context: CommandContext, _ device: NewDevice, via: String = "session") async throws -> (DeviceRecord, String?) {
        let userId = context.userId
        let deviceId = context.newId("device")
        let key = SecretToken.make(prefix: "lld_")
        let now = store.clock.now()
        let keys = store.deviceKeys
        let outcome = try await store.execute(context, .registerDevice(id: deviceId, device, via: via)) { connection, _ in
            try await keys.insert(deviceId: deviceId, userId: userId, keyHash: SecretToken.hash(key), at: now, on: connection)
        }
        guard let device = try await store.users.device(userId, deviceId) else {
            throw ResourceError.notFound
        }
        return (device, outcome.replayed ? nil : key)
    }

    public func list(_ userId: UUID, after cursor: (micros: Int64, id: UUID)?, limit: Int) async throws -> [DeviceRecord] {
        try await store.users.devices(userId, after: cursor, limit: limit)
    }

    /// Revokes a device and its key. Another user's device, or an unknown one, is `notFound`.
    public func revoke(_ context: CommandContext, deviceId: UUID) async throws {
        let userId = context.userId
        let now = store.clock.now()
        let keys = store.deviceKeys
        try await store.execute(context, .revokeDevice(id: deviceId)) { connection, _ in
            try await keys.revoke(deviceId: deviceId, userId: userId, at: now, on: connection)
        }
    }

    /// A new pairing code; a retry of the same request (same Idempotency-Key) gets the same code
    /// and expiry instead of a second code.
    public func createPairingCode(_ context: CommandContext) async throws -> (code: String, expiresAt: Date) {
        let code = SecretToken.pairingCode(seed: context.idempotencySeed)
        let now = store.clock.now()
        let expires = try await store.deviceKeys.storePairingCode(
            SecretToken.hash(code), userId: context.userId, at: now, expiresAt: now.addingTimeInterval(Self.pairingLifetime))
        return (code, expires)
    }

    /// Trades a valid, unused code for a device key. Wrong codes count like wrong passwords.
    public func pair(code: String, device: NewDevice, address: String) async throws -> (DeviceRecord, String?) {
        let key = "pairing-address:\(ClientAddress.throttleKey(address))"
        let attempt = try await store.throttle.claim([(key, SessionService.accountFailureLimit)]).attempt()
        let now = store.clock.now()
        let normalized = code.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        guard let userId = try await store.deviceKeys.spendPairingCode(SecretToken.hash(normalized), at: now) else {
            throw AuthError.invalidPairingCode
        }
        try await store.throttle.forgive(attempt)
        return try await create(CommandContext(userId: userId), device, via: "pairing code")
    }
}
