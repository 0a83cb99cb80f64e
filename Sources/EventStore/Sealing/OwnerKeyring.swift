import Crypto
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Every owner's data key (issue 29, crypto-shredding). An owner's events are sealed under a
/// key of their own, made at their first write and kept in `owner_keys` wrapped by a server key
/// that only the server's configuration holds; erasing the owner deletes the row, and what the
/// log holds of them can then be read by no one. The first server key wraps, every one unwraps
/// (`rewrapAll` moves keys to the first, so an old server key can then be dropped).
public final class OwnerKeyring: Sendable {
    public struct ServerKey: Sendable {
        /// A fingerprint, stored beside each wrapped key: not the key, and not derivable into it.
        public let id: String
        let key: SymmetricKey
    }

    public let serverKeys: [ServerKey]
    /// Unwrapped keys by owner, with the wrapped bytes they came from: a rewrapped or deleted
    /// row is noticed on the next read, which always brings the row's current bytes.
    private let cache = Mutex<[UUID: (wrapped: ByteBuffer, key: SymmetricKey)]>([:])

    public struct NoServerKey: Error, CustomStringConvertible, Sendable {
        public var description: String { "no server key is configured to seal events with" }
    }

    /// Server keys derived from the configured secrets (`JWT_KEYS` / `JWT_SECRET`), the first
    /// wrapping. HKDF with a purpose of its own: the data keys' wrapping key is not the token
    /// signing key, nor the key that seals stored secrets.
    public init(secrets: [String]) throws {
        guard !secrets.isEmpty else { throw NoServerKey() }
        serverKeys = secrets.map { secret in
            let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)),
                                             info: Data("lifelog owner data keys v1".utf8), outputByteCount: 32)
            let fingerprint = key.withUnsafeBytes { SHA256.hash(data: Data("lifelog key id".utf8) + Data($0)) }
            return ServerKey(id: fingerprint.prefix(8).map { String(format: "%02x", $0) }.joined(), key: key)
        }
    }

    // MARK: Wrapping

    /// The data key sealed under the first server key, bound to its owner.
    func wrap(_ key: SymmetricKey, owner: UUID) throws -> (wrapped: ByteBuffer, by: String) {
        let server = serverKeys[0]
        let box = try key.withUnsafeBytes { try AES.GCM.seal(Data($0), using: server.key, authenticating: owner.bytes) }
        guard let combined = box.combined else { throw SealedPayload.Unreadable(reason: "a key could not be wrapped") }
        return (ByteBuffer(bytes: combined), server.id)
    }

    public struct KeyUnavailable: Error, CustomStringConvertible, Sendable {
        public var owner: UUID
        public var description: String {
            "the data key of owner \(owner) is wrapped by a server key this server is not configured with; "
                + "add that key (JWT_KEYS) back, start the server once so it rewraps the keys, then remove it"
        }
    }

    /// The owner's data key from its wrapped bytes, from the cache when those bytes are the ones cached.
    func unwrap(_ wrapped: ByteBuffer, owner: UUID) throws -> SymmetricKey {
        if let cached = cache.withLock({ $0[owner] }), cached.wrapped == wrapped { return cached.key }
        guard let box = try? AES.GCM.SealedBox(combined: Data(buffer: wrapped)) else { throw KeyUnavailable(owner: owner) }
        for server in serverKeys {
            if let bytes = try? AES.GCM.open(box, using: server.key, authenticating: owner.bytes) {
                let key = SymmetricKey(data: bytes)
                cache.withLock { $0[owner] = (wrapped, key) }
                return key
            }
        }
        throw KeyUnavailable(owner: owner)
    }

    /// Forgets an owner's key in this process (an erasure here; other processes notice on their
    /// next read, and their appends fail at the database).
    public func forget(_ owner: UUID) {
        _ = cache.withLock { $0.removeValue(forKey: owner) }
    }

    // MARK: The database's keys

    /// The key to seal an owner's events with: the cached one, or the stored one, or a new one
    /// stored now (an owner's first write). Never one for an erased owner.
    func sealingKey(for owner: UUID, client: PostgresClient, logger: Logger) async throws -> SymmetricKey {
        if let cached = cache.withLock({ $0[owner] }) { return cached.key }
        let fresh = SymmetricKey(size: .bits256)
        let (wrapped, by) = try wrap(fresh, owner: owner)
        // Insert unless the owner has one or was erased; then read what is stored (ours, or a
        // concurrent first write's, which the insert above conflicted with).
        try await client.run("""
            INSERT INTO owner_keys (owner_id, wrapped, wrapped_by)
            SELECT \(owner), \(wrapped), \(by) WHERE NOT EXISTS (SELECT 1 FROM erased_owners WHERE owner_id = \(owner))
            ON CONFLICT (owner_id) DO NOTHING
            """, logger: logger)
        // A new statement sees an erasure that committed while the insert waited on its key row
        // (the insert then went ahead): that key goes again, and the owner stays erased.
        let rows = try await client.rows("""
            SELECT wrapped FROM owner_keys WHERE owner_id = \(owner) AND NOT EXISTS (SELECT 1 FROM erased_owners WHERE owner_id = \(owner))
            """, logger: logger)
        for try await stored in rows.decode(ByteBuffer.self) { return try unwrap(stored, owner: owner) }
        try await client.run("""
            DELETE FROM owner_keys WHERE owner_id = \(owner) AND EXISTS (SELECT 1 FROM erased_owners WHERE owner_id = \(owner))
            """, logger: logger)
        throw EventStoreError.ownerErased(owner)
    }

    /// Wraps every stored key that another server key wrapped under the first one; answers how
    /// many it rewrapped. A key no configured server key opens stops it (`KeyUnavailable`),
    /// before anything of that batch is changed: `serve` then refuses to start.
    @discardableResult
    public func rewrapAll(client: PostgresClient, logger: Logger) async throws -> Int {
        let current = serverKeys[0].id
        var rewrapped = 0
        while true {
            let rows = try await client.rows("""
                SELECT owner_id, wrapped FROM owner_keys WHERE wrapped_by <> \(current) ORDER BY owner_id LIMIT 1000
                """, logger: logger)
            var batch: [(UUID, ByteBuffer)] = []
            for try await row in rows.decode((UUID, ByteBuffer).self) { batch.append(row) }
            if batch.isEmpty { return rewrapped }
            var owners: [UUID] = [], wrappedKeys: [ByteBuffer] = []
            for (owner, wrapped) in batch {
                let key = try unwrap(wrapped, owner: owner)
                owners.append(owner)
                wrappedKeys.append(try wrap(key, owner: owner).wrapped)
            }
            try await client.run("""
                UPDATE owner_keys k SET wrapped = u.wrapped, wrapped_by = \(current)
                FROM unnest(\(owners)::uuid[], \(wrappedKeys)::bytea[]) AS u(owner_id, wrapped)
                WHERE k.owner_id = u.owner_id
                """, logger: logger)
            rewrapped += batch.count
        }
    }
}
