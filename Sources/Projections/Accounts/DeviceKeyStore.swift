import EventStore
import Foundation
import Logging
import PostgresNIO

/// Device keys (ingestion-only credentials) and the pairing codes a device trades for one,
/// beside the accounts' read model. Both arrive hashed: only their hashes are kept.
public struct DeviceKeyStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A new device's key, in the transaction that registers the device.
    public func insert(deviceId: UUID, userId: UUID, keyHash: ByteBuffer, at now: Date, on connection: PostgresConnection) async throws {
        try await connection.run("""
            INSERT INTO device_keys (device_id, user_id, key_hash, created_at) VALUES (\(deviceId), \(userId), \(keyHash), \(now))
            """, logger: logger)
    }

    /// Ends a device's key, in the transaction that revokes the device.
    public func revoke(deviceId: UUID, userId: UUID, at now: Date, on connection: PostgresConnection) async throws {
        try await connection.run("UPDATE device_keys SET revoked_at = \(now) WHERE device_id = \(deviceId) AND user_id = \(userId)", logger: logger)
    }

    /// Whose live key this is; records that it was used.
    public func use(keyHash: ByteBuffer, at now: Date) async throws -> (userId: UUID, deviceId: UUID)? {
        let rows = try await client.rows("""
            UPDATE device_keys SET last_used_at = \(now)
            WHERE key_hash = \(keyHash) AND revoked_at IS NULL
            RETURNING user_id, device_id
            """, logger: logger)
        for try await (userId, deviceId) in rows.decode((UUID, UUID).self) { return (userId, deviceId) }
        return nil
    }

    /// Stores a pairing code, or finds the same code stored by the same user before (a retried
    /// request); its expiry either way.
    public func storePairingCode(_ codeHash: ByteBuffer, userId: UUID, at now: Date, expiresAt: Date) async throws -> Date {
        var expires = expiresAt
        for try await stored in try await client.rows("""
            WITH made AS (
              INSERT INTO pairing_codes (code_hash, user_id, created_at, expires_at)
              VALUES (\(codeHash), \(userId), \(now), \(expiresAt))
              ON CONFLICT (code_hash) DO NOTHING RETURNING expires_at)
            SELECT expires_at FROM made
            UNION ALL SELECT expires_at FROM pairing_codes WHERE code_hash = \(codeHash) AND user_id = \(userId)
            LIMIT 1
            """, logger: logger).decode(Date.self) { expires = stored }
        return expires
    }

    /// Spends an unused, unexpired code; the user it was made for.
    public func spendPairingCode(_ codeHash: ByteBuffer, at now: Date) async throws -> UUID? {
        for try await id in try await client.rows("""
            UPDATE pairing_codes SET used_at = \(now)
            WHERE code_hash = \(codeHash) AND used_at IS NULL AND expires_at > \(now)
            RETURNING user_id
            """, logger: logger).decode(UUID.self) { return id }
        return nil
    }
}
