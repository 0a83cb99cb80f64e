import Core
import Crypto
import Domain
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO
import Projections
import Synchronization

/// `Idempotency-Key` on POST: the same key with the same request replays the first response
/// (status and body); the same key with another request is 422. Keys are per user, kept at least
/// 24 hours. Only successful responses are kept: a failed request may be retried with its key.
/// Secrets in a response (a device key, a pairing code) are never stored in the clear: the whole
/// answer is sealed (AES-GCM) under a key derived from the server's key and the client's
/// Idempotency-Key, and the key itself is kept only as a keyed hash, so neither a database dump
/// nor the server's key alone opens it. A replay within 24 hours is the whole answer; later (the
/// sealed copy is gone) it says what was created, without the secrets. Every replay carries the
/// `Idempotent-Replayed` header.
///
/// The key also seeds the ids the command creates (`CommandContext.newId`), so the work itself is
/// idempotent, not only the answer: a retry whose first attempt is still running waits for its
/// answer (up to `inFlightWait`), and after that, or after the first attempt's server died, runs
/// the command again, which finds the events its first attempt stored and stores nothing twice.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let header = HTTPField.Name.idempotencyKey
    let client: PostgresClient
    let clock: any WallClock
    let maxBodyBytes: Int
    /// Request fingerprints are keyed hashes (HMAC), not plain SHA-256: a body may hold a password
    /// (`POST /me/password`), and a plain hash kept for two days would let anyone with a dump and
    /// the old password try guesses at the new one at hashing speed. The first key is current.
    let fingerprintKeys: [SymmetricKey]
    /// The area's `commandsRerunSafely`: whether a retry, after waiting, may run the command
    /// again while its first attempt has not answered.
    let rerunsSafely: Bool
    /// How long a retry waits for the answer of a first attempt that is still running.
    var inFlightWait: Duration = .seconds(5)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let clientKey = request.headers[Self.header], let userId = context.identity?.userId else {
            return try await next(request, context)
        }
        guard !clientKey.isEmpty, clientKey.count <= 200 else {
            throw Problem.invalid([.init(field: "Idempotency-Key", message: "must be 1 to 200 characters")])
        }
        // The client's key is kept only as a keyed hash: with it, a dump could open the sealed answers.
        guard let keyHashKey = fingerprintKeys.first else { return try await next(request, context) }
        let key = Self.digest(clientKey, using: keyHashKey)
        var request = request
        let body = try await request.collectBody(upTo: maxBodyBytes)
        // The kind of credential is part of the request: a device key never replays a user's answer.
        let caller = context.identity.map { if case .device = $0 { "device" } else { "user" } } ?? "anonymous"
        var message = Data("\(caller) \(request.method) \(request.uri.path)\n".utf8)
        message.append(Data(buffer: body))
        let fingerprints = fingerprintKeys.map { ByteBuffer(bytes: HMAC<SHA256>.authenticationCode(for: message, using: $0)) }
        guard let requestHash = fingerprints.first else { return try await next(request, context) }
        let now = clock.now()
        let logger = context.logger

        // The seed of the command's ids: the user, the key and the request, keyed, so another
        // key or another body never meets this request's ids, and a dump reveals no body.
        var seedMessage = Data(userId.uuidString.utf8)
        seedMessage.append(0)
        seedMessage.append(Data(clientKey.utf8))
        seedMessage.append(0)
        seedMessage.append(Data(buffer: requestHash))
        var context = context
        context.idempotencySeed = fingerprintKeys.first.map { Array(HMAC<SHA256>.authenticationCode(for: seedMessage, using: $0)) }

        var claimed = try await claim(userId: userId, key: key, requestHash: requestHash, now: now, logger: logger)
        if !claimed {
            // Answered already (replayed), another request (422), or still running: wait for it.
            let polls = Int(inFlightWait / .milliseconds(50))
            for poll in 0...polls {
                switch try await replay(userId: userId, key: key, clientKey: clientKey, fingerprints: fingerprints, logger: logger) {
                case .answered(let stored):
                    return stored
                case .absent:
                    // The first attempt failed and let its claim go: this one takes it.
                    claimed = try await claim(userId: userId, key: key, requestHash: requestHash, now: now, logger: logger)
                case .inFlight(let since):
                    // Work outside the command path (hashes, tokens, codes) must not run twice:
                    // those routes wait for the first attempt, and take over only a claim its
                    // server abandoned a minute ago.
                    if !rerunsSafely {
                        if since < now.addingTimeInterval(-60) {
                            try await client.run("""
                                UPDATE idempotency_keys SET created_at = \(now)
                                WHERE user_id = \(userId) AND key = \(key) AND status IS NULL AND created_at = \(since)
                                """, logger: logger)
                            claimed = true
                        } else if poll == polls {
                            throw Problem.conflict("A request with this Idempotency-Key is still in progress; retry shortly.")
                        }
                    }
                }
                if claimed || poll == polls { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            // Still running after the wait, or its server died: run the command here. Its ids
            // derive from the key, so it finds what the first attempt stored and stores nothing twice.
        }
        let response: Response
        let bytes: ByteBuffer
        do {
            response = try await next(request, context)
            guard (200..<300).contains(response.status.code) else {
                if claimed { try await release(userId: userId, key: key, logger: logger) }
                return response
            }
            let collected = CollectedBody()
            try await response.body.write(BodyCollector(target: collected))
            bytes = collected.buffer.withLock { $0 }
        } catch {
            if claimed { try? await release(userId: userId, key: key, logger: logger) }
            throw error
        }
        let kept = Self.withoutSecrets(bytes)
        // Only an answer that had secrets is sealed; the others are kept as they are.
        let sealed = kept == bytes ? nil : try? Self.seal(bytes, userId: userId, clientKey: clientKey, serverKey: keyHashKey)
        // The work is done: keeping the answer must not turn it into a failure. A failure to keep
        // it is retried briefly, then logged; a retry then runs the command again, which finds
        // its events by their ids and answers from them.
        for attempt in 1...3 {
            do {
                try await client.run("""
                    UPDATE idempotency_keys SET status = \(Int16(response.status.code)), content_type = \(response.headers[.contentType]),
                      body = \(kept), sealed_body = \(sealed), etag = \(response.headers[.eTag]), location = \(response.headers[.location])
                    WHERE user_id = \(userId) AND key = \(key) AND status IS NULL AND request_hash = ANY(\(fingerprints))
                    """, logger: logger)
                break
            } catch {
                if attempt == 3 {
                    logger.warning("could not keep an idempotent answer", metadata: ["error": "\(String(reflecting: error))"])
                } else {
                    try? await Task.sleep(for: .milliseconds(100 * attempt))
                }
            }
        }
        var stored = Response(status: response.status, headers: response.headers, body: .init(byteBuffer: bytes))
        stored.headers[.contentLength] = String(bytes.readableBytes)
        return stored
    }

    /// The properties the document marks as secrets (`x-lifelog-secret`).
    static let secretFields: Set<String> = OpenAPIDocument.secretFields
    /// How long a sealed answer (one with secrets) can be replayed whole.
    static let sealedFor = IdempotencyKeyStore.sealedFor

    /// The stored form of a client's Idempotency-Key.
    static func digest(_ clientKey: String, using serverKey: SymmetricKey) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data("idempotency-key\0\(clientKey)".utf8), using: serverKey)).base64EncodedString()
    }

    /// The sealing key of one user's answer under one client key: HKDF over the server's key,
    /// with the client's key as the info it is bound to.
    static func sealingKey(userId: UUID, clientKey: String, serverKey: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: serverKey, salt: Data(userId.uuidString.utf8),
                               info: Data("idempotent-answer\0\(clientKey)".utf8), outputByteCount: 32)
    }

    static func seal(_ body: ByteBuffer, userId: UUID, clientKey: String, serverKey: SymmetricKey) throws -> ByteBuffer {
        let box = try AES.GCM.seal(Data(buffer: body), using: sealingKey(userId: userId, clientKey: clientKey, serverKey: serverKey))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return ByteBuffer(bytes: combined)
    }

    /// The whole answer, when one of the server's keys opens it (a rotated-out key does not).
    func open(_ sealed: ByteBuffer, userId: UUID, clientKey: String) -> ByteBuffer? {
        for serverKey in fingerprintKeys {
            guard let box = try? AES.GCM.SealedBox(combined: Data(buffer: sealed)),
                  let plain = try? AES.GCM.open(box, using: Self.sealingKey(userId: userId, clientKey: clientKey, serverKey: serverKey))
            else { continue }
            return ByteBuffer(bytes: plain)
        }
        return nil
    }

    /// The body to keep: JSON loses its secret fields at any depth (a profile's
    /// `reminders.webhook_secret` too); anything else is kept as is.
    static func withoutSecrets(_ body: ByteBuffer, secretFields: Set<String> = secretFields) -> ByteBuffer {
        guard let value = try? JSONSerialization.jsonObject(with: Data(buffer: body)) else { return body }
        var removed = false
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                var kept: [String: Any] = [:]
                for (key, inner) in object {
                    if secretFields.contains(key) { removed = true } else { kept[key] = strip(inner) }
                }
                return kept
            }
            if let list = value as? [Any] { return list.map(strip) }
            return value
        }
        let kept = strip(value)
        guard removed else { return body }
        guard let data = try? JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return ByteBuffer(string: "{}")
        }
        return ByteBuffer(bytes: data)
    }

    private func release(userId: UUID, key: String, logger: Logger) async throws {
        try await client.run("DELETE FROM idempotency_keys WHERE user_id = \(userId) AND key = \(key) AND status IS NULL", logger: logger)
    }

    enum Stored {
        case answered(Response)
        /// Claimed since this instant, not answered yet.
        case inFlight(since: Date)
        case absent
    }

    private func claim(userId: UUID, key: String, requestHash: ByteBuffer, now: Date, logger: Logger) async throws -> Bool {
        for try await _ in try await client.rows("""
            INSERT INTO idempotency_keys (user_id, key, request_hash, created_at) VALUES (\(userId), \(key), \(requestHash), \(now))
            ON CONFLICT (user_id, key) DO NOTHING
            RETURNING 1
            """, logger: logger) { return true }
        return false
    }

    /// The stored answer, or where the first attempt stands. Another request under the same key is 422.
    private func replay(userId: UUID, key: String, clientKey: String, fingerprints: [ByteBuffer], logger: Logger) async throws -> Stored {
        let rows = try await client.rows("""
            SELECT request_hash, status, content_type, body, etag, location, created_at, sealed_body FROM idempotency_keys
            WHERE user_id = \(userId) AND key = \(key)
            """, logger: logger)
        for try await (hash, status, contentType, kept, etag, location, created, sealed) in rows.decode(
            (ByteBuffer, Int16?, String?, ByteBuffer?, String?, String?, Date, ByteBuffer?).self)
        {
            let body = sealed.flatMap { open($0, userId: userId, clientKey: clientKey) } ?? kept
            guard fingerprints.contains(hash) else {
                throw Problem.invalid([.init(field: "Idempotency-Key", message: "was already used with a different request")])
            }
            guard let status, let body else { return .inFlight(since: created) }
            var headers: HTTPFields = [.idempotentReplayed: "true"]
            if let contentType { headers[.contentType] = contentType }
            if let etag { headers[.eTag] = etag }
            if let location { headers[.location] = location }
            return .answered(Response(status: .init(code: Int(status)), headers: headers, body: .init(byteBuffer: body)))
        }
        return .absent
    }
}

/// Collects a response body so it can be stored and sent again.
final class CollectedBody: Sendable {
    let buffer = Mutex(ByteBuffer())
}

struct BodyCollector: ResponseBodyWriter {
    let target: CollectedBody
    mutating func write(_ buffer: ByteBuffer) async throws {
        target.buffer.withLock { collected in
            var incoming = buffer
            collected.writeBuffer(&incoming)
        }
    }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
