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
        await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { await attempt(id: id, body: body, to: urlText, secrets: secrets, at: now) }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed(status: nil, error: "no answer within \(limit)", retryAfter: nil, gone: false)
        }
    }

    func attempt(id: String, body: String, to urlText: String, secrets: [String], at now: Date) async -> Outcome {
        guard WebhookRules.urlProblem(urlText, allowPrivate: allowPrivate) == nil, let url = URL(string: urlText), let host = url.host else {
            return .failed(status: nil, error: "the URL is not allowed", retryAfter: nil, gone: false)
        }
        var target = urlText
        var hostHeader: String?
        if !allowPrivate {
            // Checked against what the name resolves to now, not when it was saved (DNS rebinding).
            let bare = WebhookRules.hostName(host)
            let addresses: [[UInt8]]
            if let literal = WebhookRules.addressBytes(bare) { addresses = [literal] } else {
                do { addresses = try await Self.resolve(bare) } catch { return .failed(status: nil, error: "cannot resolve \(bare)", retryAfter: nil, gone: false) }
            }
            guard let first = addresses.first, addresses.allSatisfy(WebhookRules.isPublic) else {
                return .failed(status: nil, error: "\(bare) resolves to a private or loopback address", retryAfter: nil, gone: false)
            }
            // Plain http goes to the address just checked; https needs the name for its certificate.
            if url.scheme?.lowercased() == "http", WebhookRules.addressBytes(bare) == nil, var parts = URLComponents(string: urlText) {
                parts.host = first.count == 4 ? first.map(String.init).joined(separator: ".") : "[" + Self.ipv6(first) + "]"
                hostHeader = url.port.map { "\(bare):\($0)" } ?? bare
                target = parts.string ?? urlText
            }
        }
        let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
        var request = HTTPClientRequest(url: target)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "lifelog-webhooks")
        request.headers.add(name: "webhook-id", value: id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: Self.signature(id: id, timestamp: timestamp, body: body, secrets: secrets))
        if let hostHeader { request.headers.replaceOrAdd(name: "host", value: hostHeader) }
        request.body = .bytes(ByteBuffer(string: body))
        do {
            let response = try await http.execute(request, timeout: .seconds(15))
            let status = Int(response.status.code)
            // A 2xx is all that counts: its body is not read at all. Other answers' bodies are read
            // up to 4 KiB (within the push's time limit), then dropped.
            if (200..<300).contains(status) { return .delivered(status: status) }
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if read >= 4_096 { break }
            }
            let retryAfter = [429, 503].contains(status) ? response.headers.first(name: "retry-after").flatMap(Double.init) : nil
            let error = (300..<400).contains(status) ? "redirects are not followed (\(status))" : "the receiver answered \(status)"
            return .failed(status: status, error: error, retryAfter: retryAfter, gone: status == 410)
        } catch {
            return .failed(status: nil, error: "no answer: \(String(describing: error).prefix(200))", retryAfter: nil, gone: false)
        }
    }

    /// Every address a name resolves to (getaddrinfo, on NIO's thread pool: it blocks).
    static func resolve(_ host: String) async throws -> [[UInt8]] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0, let head = list else { throw ResolveError() }
            defer { freeaddrinfo(head) }
            var found: [[UInt8]] = []
            var next: UnsafeMutablePointer<addrinfo>? = head
            while let entry = next {
                if let address = entry.pointee.ai_addr {
                    if entry.pointee.ai_family == AF_INET {
                        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                            withUnsafeBytes(of: v4.pointee.sin_addr) { found.append(Array($0)) }
                        }
                    } else if entry.pointee.ai_family == AF_INET6 {
                        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                            withUnsafeBytes(of: v6.pointee.sin6_addr) { found.append(Array($0)) }
                        }
                    }
                }
                next = entry.pointee.ai_next
            }
            if found.isEmpty { throw ResolveError() }
            return found
        }
    }

    struct ResolveError: Error {}

    static func ipv6(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
