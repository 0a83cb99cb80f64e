import AsyncHTTPClient
import Crypto
import Domain
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Pushes one delivery as Standard Webhooks says: `webhook-id` (the outbox key, the same on
/// every retry), `webhook-timestamp` (the attempt's Unix seconds) and `webhook-signature`
/// (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, one per valid secret, space-separated).
/// Redirects are not followed; the answer's body is read up to 4 KiB.
public struct WebhookSender: Sendable {
    public enum Outcome: Sendable, Equatable {
        case delivered(status: Int)
        /// `retryAfter` in seconds, from a 429 or 503.
        case failed(status: Int?, error: String, retryAfter: Double?, gone: Bool)
    }

    let http: HTTPClient
    let allowPrivate: Bool
    let limit: Duration

    public init(http: HTTPClient, allowPrivate: Bool, limit: Duration = WebhookSender.limit) {
        self.http = http
        self.allowPrivate = allowPrivate
        self.limit = limit
    }

    /// A whole push (lookup, connection, request, answer) never takes longer than this: one slow
    /// receiver must not hold a worker's batch, whose lease is 120 s.
    public static let limit: Duration = .seconds(20)

    /// For the API's `POST /webhooks/{id}/test`: one client for the process, without redirects.
    public static let shared = makeClient()

    /// An HTTP client for webhooks: 5 s to connect, no redirects.
    public static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// `whsec_` and the base64 of 32 random bytes.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    /// Whether a secret has the `whsec_` form with 24 to 64 key bytes.
    public static func isValidSecret(_ secret: String) -> Bool {
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))) else { return false }
        return (24...64).contains(key.count)
    }

    public static func signature(id: String, timestamp: Int64, body: String, secrets: [String]) -> String {
        secrets.compactMap { secret -> String? in
            guard let key = Data(base64Encoded: String(secret.dropFirst(6))) else { return nil }
            let mac = HMAC<SHA256>.authenticationCode(for: Data(WebhookRules.signedContent(id: id, timestamp: timestamp, body: body).utf8), using: SymmetricKey(data: key))
            return "v1," + Data(mac).base64EncodedString()
        }.joined(separator: " ")
    }

    public func send(id: String, body: String, to urlText: String, secrets: [String], at now: Date) async -> Outcome {
        let deadline = NIODeadline.now() + TimeAmount(limit)
        // A name to look up runs under a timer of its own (which still waits for a lookup that
        // hangs: getaddrinfo cannot be cancelled, its resolver bounds it); an address needs none:
        // the HTTP client's deadline bounds the request and its answer's head, and
        // `readRefusal` the rest (a timer task per push cost about 5 % of the push's CPU, issue 30).
        guard !WebhookTarget.needsLookup(urlText, allowPrivate: allowPrivate) else {
            return await Self.within(limit) { await attempt(id: id, body: body, to: urlText, secrets: secrets, at: now, deadline: deadline) }
                ?? Self.noAnswerOutcome
        }
        return await attempt(id: id, body: body, to: urlText, secrets: secrets, at: now, deadline: deadline)
    }

    /// `work`'s result, or nil once `limit` has passed.
    static func within<Value: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async -> Value) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await work() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Reads a body to its end, or until more than `limit` bytes have come (the rest is left,
    /// and the connection with it); whether it ended.
    static func drain(_ body: HTTPClientResponse.Body, upTo limit: Int) async throws -> Bool {
        var read = 0
        for try await chunk in body {
            read += chunk.readableBytes
            if read > limit { return false }
        }
        return true
    }

    func attempt(id: String, body: String, to urlText: String, secrets: [String], at now: Date, deadline: NIODeadline) async -> Outcome {
        let target: WebhookTarget
        switch await WebhookTarget.check(urlText, allowPrivate: allowPrivate) {
        case .success(let checked): target = checked
        case .failure(.notAllowed): return .failed(status: nil, error: "the URL is not allowed", retryAfter: nil, gone: false)
        // Whether a name resolves, a port is closed or a host never answers is the same failure
        // to a caller: the test route must not be a scanner of what a server can reach.
        case .failure(.unresolvable): return Self.noAnswerOutcome
        }
        let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "lifelog-webhooks")
        request.headers.add(name: "webhook-id", value: id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: Self.signature(id: id, timestamp: timestamp, body: body, secrets: secrets))
        if let hostHeader = target.hostHeader { request.headers.replaceOrAdd(name: "host", value: hostHeader) }
        request.body = .bytes(ByteBuffer(string: body))
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, deadline: deadline)
        } catch {
            return Self.noAnswerOutcome
        }
        let status = Int(response.status.code)
        let remaining = Duration.nanoseconds(max(0, (deadline - NIODeadline.now()).nanoseconds))
        // A 2xx is all that counts, but over HTTP/1 its end is read: an answer dropped before
        // the HTTP client has seen its end closes the connection, and the next push opens
        // another (one push in 19 did, issue 30). An HTTP/1 answer with no body ends at its head,
        // so it needs no timer; a body is read up to 4 KiB within the push's time limit. Over
        // HTTP/2 a dropped answer resets its stream only, and a stream can stay open after a
        // 204's head, so nothing is read.
        if (200..<300).contains(status) {
            guard response.version.major == 1 else { return .delivered(status: status) }
            if status == 204 || response.headers.first(name: "content-length") == "0" {
                _ = try? await Self.drain(response.body, upTo: 0)
            } else {
                _ = await Self.within(remaining) { (try? await Self.drain(response.body, upTo: 4_096)) ?? false }
            }
            return .delivered(status: status)
        }
        return await Self.within(remaining) { await Self.readRefusal(response, status: status) } ?? Self.noAnswerOutcome
    }

    /// A refusal's outcome, its body read up to 4 KiB (within the push's time limit) and dropped.
    static func readRefusal(_ response: HTTPClientResponse, status: Int) async -> Outcome {
        guard (try? await drain(response.body, upTo: 4_096)) != nil else { return noAnswerOutcome }
        let retryAfter = [429, 503].contains(status) ? response.headers.first(name: "retry-after").flatMap(Double.init) : nil
        let error = (300..<400).contains(status) ? "redirects are not followed (\(status))" : "the receiver answered \(status)"
        return .failed(status: status, error: error, retryAfter: retryAfter, gone: status == 410)
    }

    /// A push that got no HTTP answer, for whatever reason (refused, reset, timed out, no address).
    public static let noAnswer = "no answer from the receiver"
    static let noAnswerOutcome = Outcome.failed(status: nil, error: noAnswer, retryAfter: nil, gone: false)
}
