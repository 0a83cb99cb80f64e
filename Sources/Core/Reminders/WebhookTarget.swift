import Domain
import Foundation
import NIOPosix

/// Where a webhook URL goes, checked by one piece of code when the URL is saved and at every
/// delivery (issue 24): its form (`WebhookRules.urlProblem`), and, unless private targets are
/// allowed, every address its host resolves to now (not when it was saved: DNS rebinding) must
/// be global unicast (`WebhookRules.isGlobalUnicast`).
public struct WebhookTarget: Sendable, Equatable {
    /// What to connect to: for plain http, the URL with the address just checked in place of
    /// the name (so no second lookup can differ); https keeps the name for its certificate.
    public var url: String
    /// The Host header when `url` names the address instead of the name.
    public var hostHeader: String?

    public init(url: String, hostHeader: String?) {
        self.url = url
        self.hostHeader = hostHeader
    }

    public enum Refusal: Error, Sendable, Equatable {
        /// The URL, or an address it resolves to, is not allowed; why.
        case notAllowed(String)
        /// Its host name does not resolve now.
        case unresolvable
    }

    public static func check(_ urlText: String, allowPrivate: Bool) async -> Result<WebhookTarget, Refusal> {
        if let problem = WebhookRules.urlProblem(urlText, allowPrivate: allowPrivate) { return .failure(.notAllowed(problem)) }
        guard let url = URL(string: urlText), let host = url.host else { return .failure(.notAllowed("must be an http or https URL")) }
        guard !allowPrivate else { return .success(WebhookTarget(url: urlText, hostHeader: nil)) }
        let bare = WebhookRules.hostName(host)
        let literal = WebhookRules.addressBytes(bare)
        let addresses: [[UInt8]]
        if let literal { addresses = [literal] } else {
            do { addresses = try await resolve(bare) } catch { return .failure(.unresolvable) }
        }
        guard let first = addresses.first, addresses.allSatisfy(WebhookRules.isGlobalUnicast) else {
            return .failure(.notAllowed("resolves to an address that is not public; " + WebhookRules.notGlobal))
        }
        if url.scheme?.lowercased() == "http", literal == nil, var parts = URLComponents(string: urlText) {
            parts.host = first.count == 4 ? first.map(String.init).joined(separator: ".") : "[" + ipv6(first) + "]"
            return .success(WebhookTarget(url: parts.string ?? urlText, hostHeader: url.port.map { "\(bare):\($0)" } ?? bare))
        }
        return .success(WebhookTarget(url: urlText, hostHeader: nil))
    }

    /// Whether `check` would look the URL's host up (a name, and private targets not allowed).
    public static func needsLookup(_ urlText: String, allowPrivate: Bool) -> Bool {
        guard !allowPrivate, let host = URL(string: urlText)?.host else { return false }
        return WebhookRules.addressBytes(WebhookRules.hostName(host)) == nil
    }

    /// The check a URL gets when it is saved: a refused address is a validation error of
    /// `field`; a name that does not resolve yet is accepted (every delivery checks it again).
    public static func saveProblem(_ urlText: String, allowPrivate: Bool) async -> String? {
        switch await check(urlText, allowPrivate: allowPrivate) {
        case .success, .failure(.unresolvable): nil
        case .failure(.notAllowed(let why)): why
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
