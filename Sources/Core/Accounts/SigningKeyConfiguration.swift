import Foundation
import Logging

/// Where access-token keys come from: `JWT_KEYS` ("kid=secret,kid=secret", the first signs, all
/// verify, so keys can rotate), else `JWT_SECRET` (kid "primary"), else a development key
/// generated once and kept in the local data folder, which the server says in its log.
public enum SigningKeyConfiguration {
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public static func keys(environment: [String: String], dataDirectory: URL, logger: Logger) throws -> [SigningKey] {
        if let raw = environment["JWT_KEYS"], !raw.isEmpty {
            let keys = try raw.split(separator: ",").map { entry -> SigningKey in
                let parts = entry.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty else { throw Invalid(description: "JWT_KEYS must be kid=secret pairs separated by commas") }
                return SigningKey(kid: String(parts[0]), secret: String(parts[1]))
            }
            try checkStrength(keys)
            return keys
        }
        if let secret = environment["JWT_SECRET"], !secret.isEmpty {
            let keys = [SigningKey(kid: "primary", secret: secret)]
            try checkStrength(keys)
            return keys
        }
        let file = dataDirectory.appendingPathComponent("jwt-dev-key")
        if let existing = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), !existing.isEmpty {
            logger.notice("using the development signing key; set JWT_SECRET or JWT_KEYS in production", metadata: ["file": "\(file.path)"])
            return [SigningKey(kid: "dev", secret: existing)]
        }
        let secret = SecretToken.make(prefix: "")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: file.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
        logger.warning("no JWT_SECRET or JWT_KEYS: generated a development signing key", metadata: ["file": "\(file.path)"])
        return [SigningKey(kid: "dev", secret: secret)]
    }

    static func checkStrength(_ keys: [SigningKey]) throws {
        if let weak = keys.first(where: { $0.secret.utf8.count < 32 }) {
            throw Invalid(description: "the signing key \(weak.kid) is shorter than 32 bytes")
        }
    }
}
