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
        var request = request
        let body = try await request.collectBody(upTo: maxBodyBytes)
        let fingerprints = fingerprints(of: request, body: body, identity: context.identity)
        guard let requestHash = fingerprints.first else { return try await next(request, context) }
        let call = Call(userId: userId, clientKey: clientKey, key: Self.digest(clientKey, using: keyHashKey), fingerprints: fingerprints,
                        now: clock.now(), store: IdempotencyKeyStore(client: client, logger: context.logger))
        var context = context
        context.idempotencySeed = Self.seed(userId: userId, clientKey: clientKey, requestHash: requestHash, using: keyHashKey)
        switch try await turn(call) {
        case .replay(let stored): return stored
        case .run(let claimed): return try await runAndKeep(request, context: context, call: call, claimed: claimed, serverKey: keyHashKey, next: next)
        }
    }

    /// One request under one key: who asks, the key's stored form, the request's fingerprints
    /// (under each of the server's keys, the current first), and the store of answers.
    struct Call {
        var userId: UUID
        var clientKey: String
        var key: String
        var fingerprints: [ByteBuffer]
        var now: Date
        var store: IdempotencyKeyStore
    }

    enum Turn {
        /// An answer to send again.
        case replay(Response)
        /// Run the command; `claimed` when this request holds the key (and keeps the answer).
        case run(claimed: Bool)
    }

    /// The request's fingerprints: the kind of credential is part of it (a device key never
    /// replays a user's answer), then method, path and body.
    func fingerprints(of request: Request, body: ByteBuffer, identity: Identity?) -> [ByteBuffer] {
        let caller = identity.map { if case .device = $0 { "device" } else { "user" } } ?? "anonymous"
        var message = Data("\(caller) \(request.method) \(request.uri.path)\n".utf8)
        message.append(Data(buffer: body))
        return fingerprintKeys.map { ByteBuffer(bytes: HMAC<SHA256>.authenticationCode(for: message, using: $0)) }
    }

    /// The seed of the command's ids: the user, the key and the request, keyed, so another key
    /// or another body never meets this request's ids, and a dump reveals no body.
    static func seed(userId: UUID, clientKey: String, requestHash: ByteBuffer, using serverKey: SymmetricKey) -> [UInt8] {
        var seedMessage = Data(userId.uuidString.utf8)
        seedMessage.append(0)
        seedMessage.append(Data(clientKey.utf8))
        seedMessage.append(0)
        seedMessage.append(Data(buffer: requestHash))
        return Array(HMAC<SHA256>.authenticationCode(for: seedMessage, using: serverKey))
    }

    /// Claims the key, or, when someone holds it, waits for their answer (replayed), another
    /// request's (422), or up to `inFlightWait` for one still running.
    func turn(_ call: Call) async throws -> Turn {
        guard let requestHash = call.fingerprints.first else { return .run(claimed: false) }
        var claimed = try await call.store.claim(userId: call.userId, key: call.key, requestHash: requestHash, at: call.now)
        guard !claimed else { return .run(claimed: true) }
        let polls = Int(inFlightWait / .milliseconds(50))
        for poll in 0...polls {
            switch try await replay(call) {
            case .answered(let stored):
                return .replay(stored)
            case .absent:
                // The first attempt failed and let its claim go: this one takes it.
                claimed = try await call.store.claim(userId: call.userId, key: call.key, requestHash: requestHash, at: call.now)
            case .inFlight(let since):
                // Work outside the command path (hashes, tokens, codes) must not run twice:
                // those routes wait for the first attempt, and take over only a claim its
                // server abandoned a minute ago.
                if !rerunsSafely {
                    if since < call.now.addingTimeInterval(-60) {
                        try await call.store.takeOver(userId: call.userId, key: call.key, claimedAt: since, at: call.now)
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
        return .run(claimed: claimed)
    }

    /// Runs the request and keeps a successful answer; a failure lets the claim go.
    func runAndKeep(
        _ request: Request, context: Context, call: Call, claimed: Bool, serverKey: SymmetricKey,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response: Response
        let bytes: ByteBuffer
        do {
            response = try await next(request, context)
            guard (200..<300).contains(response.status.code) else {
                if claimed { try await call.store.release(userId: call.userId, key: call.key) }
                return response
            }
            let collected = CollectedBody()
            try await response.body.write(BodyCollector(target: collected))
            bytes = collected.buffer.withLock { $0 }
        } catch {
            if claimed { try? await call.store.release(userId: call.userId, key: call.key) }
            throw error
        }
        let kept = Self.withoutSecrets(bytes)
        // Only an answer that had secrets is sealed; the others are kept as they are.
        let sealed = kept == bytes ? nil : try? Self.seal(bytes, userId: call.userId, clientKey: call.clientKey, serverKey: serverKey)
        let answer = IdempotencyKeyStore.Answer(
            status: Int16(response.status.code), contentType: response.headers[.contentType], body: kept, sealedBody: sealed,
            etag: response.headers[.eTag], location: response.headers[.location])
        // The work is done: keeping the answer must not turn it into a failure. A failure to keep
        // it is retried briefly, then logged; a retry then runs the command again, which finds
        // its events by their ids and answers from them.
        for attempt in 1...3 {
            do {
                try await call.store.keep(answer, userId: call.userId, key: call.key, fingerprints: call.fingerprints)
                break
            } catch {
                if attempt == 3 {
                    context.logger.warning("could not keep an idempotent answer", metadata: ["error": "\(String(reflecting: error))"])
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

    enum Stored {
        case answered(Response)
        /// Claimed since this instant, not answered yet.
        case inFlight(since: Date)
        case absent
    }

    /// The stored answer, or where the first attempt stands. Another request under the same key is 422.
    private func replay(_ call: Call) async throws -> Stored {
        guard let entry = try await call.store.entry(userId: call.userId, key: call.key) else { return .absent }
        let body = entry.sealedBody.flatMap { open($0, userId: call.userId, clientKey: call.clientKey) } ?? entry.body
        guard call.fingerprints.contains(entry.requestHash) else {
            throw Problem.invalid([.init(field: "Idempotency-Key", message: "was already used with a different request")])
        }
        guard let status = entry.status, let body else { return .inFlight(since: entry.claimedAt) }
        var headers: HTTPFields = [.idempotentReplayed: "true"]
        if let contentType = entry.contentType { headers[.contentType] = contentType }
        if let etag = entry.etag { headers[.eTag] = etag }
        if let location = entry.location { headers[.location] = location }
        return .answered(Response(status: .init(code: Int(status)), headers: headers, body: .init(byteBuffer: body)))
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
