import Foundation

/// Where webhooks may go and how often they are retried (issue 14, Delivery).
public enum WebhookRules {
    /// Checks a URL as saved: http or https with a host, no credentials in it. A host that is an
    /// address literal must be public unless `allowPrivate`; a name is checked again, resolved,
    /// at every delivery. Nil when it holds, else why not.
    public static func urlProblem(_ text: String, allowPrivate: Bool) -> String? {
        guard text.count <= 2_000, let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            return "must be an http or https URL"
        }
        guard let host = url.host, !host.isEmpty else { return "must name a host" }
        if url.user != nil || url.password != nil { return "must not carry credentials" }
        let bare = hostName(host)
        // Numbers that are not a plain dotted quad (2130706433, 0x7f.1, 012.0.0.1) are read as
        // addresses by some resolvers and as names by others: refused, so no two parts of the
        // server can disagree on where a URL goes.
        if addressBytes(bare) == nil, !bare.contains(":"), bare.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" || $0 == "X" }),
           bare.split(separator: ".").last.map({ $0.allSatisfy(\.isNumber) || $0.lowercased().hasPrefix("0x") }) ?? true {
            return "must name a host, or an IPv4 address as four decimal numbers"
        }
        if !allowPrivate {
            if let bytes = addressBytes(bare), !isPublic(bytes) { return "must not point to a loopback, link-local, private or multicast address" }
            if bare == "localhost" || bare.hasSuffix(".localhost") { return "must not point to a loopback, link-local, private or multicast address" }
        }
        return nil
    }

    /// The host as resolvers read it: without IPv6 brackets or a final dot (`localhost.` is `localhost`).
    public static func hostName(_ host: String) -> String {
        var bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        while bare.hasSuffix(".") { bare.removeLast() }
        return bare.lowercased()
    }

    /// An IPv4 or IPv6 literal's bytes (4 or 16), nil for a name. IPv4 is four decimal numbers
    /// without leading zeros (`012` is octal to some resolvers: not a literal here).
    public static func addressBytes(_ text: String) -> [UInt8]? {
        let v4 = text.split(separator: ".", omittingEmptySubsequences: false)
        if v4.count == 4 {
            let bytes = v4.compactMap { part -> UInt8? in
                guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), part == "0" || !part.hasPrefix("0") else { return nil }
                return UInt8(part)
            }
            return bytes.count == 4 ? bytes : nil
        }
        guard text.contains(":") else { return nil }
        var groups: [UInt16] = []
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func parse(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            for piece in part.split(separator: ":", omittingEmptySubsequences: false) {
                if piece.contains("."), let v4 = addressBytes(String(piece)), v4.count == 4 {
                    out += [UInt16(v4[0]) << 8 | UInt16(v4[1]), UInt16(v4[2]) << 8 | UInt16(v4[3])]
                } else {
                    guard piece.count <= 4, let value = UInt16(piece, radix: 16) else { return nil }
                    out.append(value)
                }
            }
            return out
        }
        guard let head = parse(halves[0]) else { return nil }
        if halves.count == 2 {
            guard let tail = parse(halves[1]), head.count + tail.count < 8 else { return nil }
            groups = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            groups = head
        }
        guard groups.count == 8 else { return nil }
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Whether an address is on the public internet: not unspecified, loopback, private,
    /// carrier-grade NAT, link-local, multicast, reserved or documentation; IPv4-mapped IPv6
    /// addresses are judged as the IPv4 address they carry.
    public static func isPublic(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 {
            let (a, b) = (bytes[0], bytes[1])
            if a == 0 || a == 10 || a == 127 || a >= 224 { return false }
            if a == 100 && (64...127).contains(b) { return false }
            if a == 169 && b == 254 { return false }
            if a == 172 && (16...31).contains(b) { return false }
            if a == 192 && b == 168 { return false }
            if a == 192 && b == 0 && bytes[2] == 0 { return false }
            if a == 198 && (18...19).contains(b) { return false }
            return true
        }
        guard bytes.count == 16 else { return false }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return isPublic(Array(bytes[12...])) }
        if bytes.allSatisfy({ $0 == 0 }) { return false }                              // ::
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return false }   // ::1
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return isPublic(Array(bytes[12...])) }  // ::a.b.c.d (IPv4-compatible)
        if bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublic(Array(bytes[12...])) } // NAT64
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return isPublic(Array(bytes[2..<6])) }  // 6to4
        if bytes[0] == 0x01 && bytes[1] == 0x00 && bytes[2..<8].allSatisfy({ $0 == 0 }) { return false } // discard 100::/64
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return false }                // site-local (deprecated)
        if bytes[0] == 0xFF { return false }                                           // multicast
        if bytes[0] & 0xFE == 0xFC { return false }                                    // unique local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return false }                // link-local
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8 { return false } // documentation
        return true
    }

    /// Waits before each retry: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. After the last,
    /// the delivery is failed.
    public static let retryDelays: [Double] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]

    /// An endpoint failing every attempt this long is disabled.
    public static let disableAfter: Double = 5 * 86_400

    /// The wait after failed attempt `attempt` (1 for the first), with `jitter` in 0..<1 spreading
    /// it by ±10 %; a `Retry-After` (from 429 or 503) is honoured when longer. Nil: give up.
    public static func retryDelay(afterAttempt attempt: Int, jitter: Double, retryAfter: Double?) -> Double? {
        guard attempt >= 1, attempt <= retryDelays.count else { return nil }
        let base = retryDelays[attempt - 1] * (0.9 + 0.2 * min(max(jitter, 0), 1))
        return max(base, min(retryAfter ?? 0, 86_400))
    }

    /// What Standard Webhooks signs: `{id}.{timestamp}.{body}`.
    public static func signedContent(id: String, timestamp: Int64, body: String) -> String {
        "\(id).\(timestamp).\(body)"
    }
}
