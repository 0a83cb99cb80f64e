import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// Device keys for ingestion-only clients, and pairing codes that let a device get one.
public struct DeviceService: Sendable {
    public static let pairingLifetime: TimeInterval = 10 * 60
    let store: AccountsStore

    var client: PostgresClient { store.client }
    var logger: Logger { store.logger }

    /// The new device and its key, shown once. A retried request (same Idempotency-Key) that
    /// finds the device its first attempt stored answers without a key: only a hash was kept.
    public func create(_ context: CommandContext, name: String, kind: String, via: String = "session") async throws -> (DeviceRecord, String?) {
        let userId = context.userId
        let deviceId = context.newId("device")
        let key = SecretToken.make(prefix: "lld_")
        let now = store.clock.now()
        let outcome = try await store.execute(context, .registerDevice(id: deviceId, name: name, kind: kind, via: via)) { connection, _ in
            try await connection.run("""
                INSERT INTO device_keys (device_id, user_id, key_hash, created_at) VALUES (\(deviceId), \(userId), \(SecretToken.hash(key)), \(now))
                """, logger: logger)
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
        try await store.execute(context, .revokeDevice(id: deviceId)) { connection, _ in
            try await connection.run("UPDATE device_keys SET revoked_at = \(now) WHERE device_id = \(deviceId) AND user_id = \(userId)", logger: logger)
        }
    }

    /// A new pairing code; a retry of the same request (same Idempotency-Key) gets the same code
    /// and expiry instead of a second code.
    public func createPairingCode(_ context: CommandContext) async throws -> (code: String, expiresAt: Date) {
        let code = SecretToken.pairingCode(seed: context.idempotencySeed)
        let now = store.clock.now()
        var expires = now.addingTimeInterval(Self.pairingLifetime)
        for try await stored in try await client.rows("""
            WITH made AS (
              INSERT INTO pairing_codes (code_hash, user_id, created_at, expires_at)
              VALUES (\(SecretToken.hash(code)), \(context.userId), \(now), \(expires))
              ON CONFLICT (code_hash) DO NOTHING RETURNING expires_at)
            SELECT expires_at FROM made
            UNION ALL SELECT expires_at FROM pairing_codes WHERE code_hash = \(SecretToken.hash(code)) AND user_id = \(context.userId)
            LIMIT 1
            """, logger: logger).decode(Date.self) { expires = stored }
        return (code, expires)
    }

    /// Trades a valid, unused code for a device key. Wrong codes count like wrong passwords.
    public func pair(code: String, deviceName: String, kind: String, address: String) async throws -> (DeviceRecord, String?) {
        let key = "pairing-address:\(ClientAddress.throttleKey(address))"
        let attempt = try await store.throttle.claim([(key, SessionService.accountFailureLimit)]).attempt()
        let now = store.clock.now()
        let normalized = code.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        var userId: UUID?
        for try await id in try await client.rows("""
            UPDATE pairing_codes SET used_at = \(now)
            WHERE code_hash = \(SecretToken.hash(normalized)) AND used_at IS NULL AND expires_at > \(now)
            RETURNING user_id
            """, logger: logger).decode(UUID.self) { userId = id }
        guard let userId else { throw AuthError.invalidPairingCode }
        try await store.throttle.forgive(attempt)
        return try await create(CommandContext(userId: userId), name: deviceName, kind: kind, via: "pairing code")
    }
}
