import Crypto
import Foundation
import Projections

/// Secrets lifelog must be able to read again (a webhook's signing secret signs every push, so
/// it cannot be hashed) are stored sealed: AES-GCM under a key derived from the server's signing
/// keys (`JWT_KEYS` / `JWT_SECRET`), never in the clear (issue 24). The first key seals, every
/// key opens, so keys rotate as the signing keys do. A database dump without the server's key
/// holds no usable secret; keep that key out of the database's backups.
public struct SecretSealer: SecretSealing {
    static let prefix = "sealed:v1:"
    let keys: [SymmetricKey]

    public init(signingKeys: [SigningKey]) {
        keys = signingKeys.map { key in
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data(key.secret.utf8)),
                                   info: Data("lifelog stored secrets v1".utf8), outputByteCount: 32)
        }
    }

    public struct Unreadable: Error, Sendable {}

    /// `sealed:v1:` and the base64 of nonce, ciphertext and tag.
    public func seal(_ secret: String) throws -> String {
        guard let key = keys.first else { throw Unreadable() }
        let box = try AES.GCM.seal(Data(secret.utf8), using: key)
        guard let combined = box.combined else { throw Unreadable() }
        return Self.prefix + combined.base64EncodedString()
    }

    /// The secret in a stored value. A value stored before secrets were sealed is returned as it
    /// is (`serve` seals those at start).
    public func open(_ stored: String) throws -> String {
        guard isSealed(stored) else { return stored }
        guard let data = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
              let box = try? AES.GCM.SealedBox(combined: data) else { throw Unreadable() }
        for key in keys {
            if let opened = try? AES.GCM.open(box, using: key) { return String(decoding: opened, as: UTF8.self) }
        }
        throw Unreadable()
    }

    public func isSealed(_ stored: String) -> Bool { stored.hasPrefix(Self.prefix) }
}
