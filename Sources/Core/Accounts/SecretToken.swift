import Crypto
import Foundation
import NIOCore

/// High-entropy secrets (refresh tokens, device keys, pairing codes) and their stored form.
/// They are stored as SHA-256: with this much entropy a slow hash adds nothing.
public enum SecretToken {
    /// 32 random bytes, base64url without padding, after a readable prefix.
    public static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L): random, or, for a
    /// request with an Idempotency-Key, drawn from its seed (a keyed hash only the server can
    /// make), so a retry of a request whose answer was lost gets the same code.
    public static func pairingCode(seed: [UInt8]? = nil) -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
        if let seed {
            var message = Data(seed)
            message.append(contentsOf: Array("\0pairing-code".utf8))
            let bytes = Array(SHA256.hash(data: message))
            return String(bytes.prefix(8).map { alphabet[Int($0) % alphabet.count] })
        }
        var generator = SystemRandomNumberGenerator()
        return String((0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// A random password for `lifelog users reset-password`.
    public static func password() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The stored form (bytea).
    public static func hash(_ secret: String) -> ByteBuffer {
        ByteBuffer(bytes: SHA256.hash(data: Data(secret.utf8)))
    }
}
