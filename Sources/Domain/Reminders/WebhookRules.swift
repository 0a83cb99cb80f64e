import Foundation

/// Where webhooks may go and how often they are retried (issue 14, Delivery).
public enum WebhookRules {
    /// Checks a URL's form: http or https with a host, no credentials in it, no zone. A host that
    /// is an address literal must be global unicast unless `allowPrivate`; a name's addresses are
    /// checked by the caller when it resolves it, when saved and at every delivery
    /// (`WebhookTarget` in Core). Nil when it holds, else why not.
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
        // A zone (`[fe80::1%25eth0]`) names an interface of this host: never a receiver elsewhere.
        if bare.contains("%") { return "must not name a network interface (a zone such as %25eth0)" }
        if !allowPrivate {
            if let bytes = addressBytes(bare), !isGlobalUnicast(bytes) { return Self.notGlobal }
            if bare == "localhost" || bare.hasSuffix(".localhost") { return Self.notGlobal }
        }
        return nil
    }

    /// Why an address is refused: it is not a global unicast address.
    public static let notGlobal = "must point to a public (global unicast) address, not a loopback, private, link-local, documentation, "
        + "multicast or other special-purpose one"

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
        // An IPv6 address may end in a dotted quad (`::ffff:127.0.0.1`): four dot-separated parts
        // with a colon are IPv6, not an IPv4 address to refuse for its first part.
        if v4.count == 4, !text.contains(":") {
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

    /// Whether an address may receive a webhook when private targets are not allowed: global
    /// unicast, and in none of the blocks of IANA's special-purpose address registries (IPv4 and
    /// IPv6, as of 2024): not unspecified, loopback, private, shared (carrier-grade NAT),
    /// link-local, documentation, benchmarking, reserved, multicast, nor any translation or
    /// tunnelling form (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo), whatever address such
    /// a form carries: a receiver is reached at its own address. IPv6 outside 2000::/3 is not
    /// global unicast at all.
    public static func isGlobalUnicast(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 { return !Self.specialIPv4.contains { $0.contains(bytes) } }
        guard bytes.count == 16, bytes[0] & 0xE0 == 0x20 else { return false }  // 2000::/3
        return !Self.specialIPv6.contains { $0.contains(bytes) }
    }

    /// A block of addresses: a prefix and its length in bits.
    struct Block: Sendable {
        var prefix: [UInt8]
        var bits: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == prefix.count else { return false }
            var remaining = bits
            for index in prefix.indices where remaining > 0 {
                let take = min(8, remaining)
                let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
                if address[index] & mask != prefix[index] & mask { return false }
                remaining -= take
            }
            return true
        }

        init(_ prefix: [UInt8], _ bits: Int, length: Int) {
            self.prefix = prefix + Array(repeating: 0, count: max(0, length - prefix.count))
            self.bits = bits
        }
    }

    /// IANA IPv4 Special-Purpose Address Registry, every entry (those marked globally reachable
    /// too: none is a place for a webhook), and the multicast and reserved ranges.
    static let specialIPv4: [Block] = [
        Block([0], 8, length: 4),                 // "this network"
        Block([10], 8, length: 4),                // private
        Block([100, 64], 10, length: 4),          // shared address space (carrier-grade NAT)
        Block([127], 8, length: 4),               // loopback
        Block([169, 254], 16, length: 4),         // link-local
        Block([172, 16], 12, length: 4),          // private
        Block([192, 0, 0], 24, length: 4),        // IETF protocol assignments
        Block([192, 0, 2], 24, length: 4),        // documentation (TEST-NET-1)
        Block([192, 31, 196], 24, length: 4),     // AS112-v4
        Block([192, 52, 193], 24, length: 4),     // AMT
        Block([192, 88, 99], 24, length: 4),      // deprecated 6to4 relay anycast
        Block([192, 168], 16, length: 4),         // private
        Block([192, 175, 48], 24, length: 4),     // direct delegation AS112
        Block([198, 18], 15, length: 4),          // benchmarking
        Block([198, 51, 100], 24, length: 4),     // documentation (TEST-NET-2)
        Block([203, 0, 113], 24, length: 4),      // documentation (TEST-NET-3)
        Block([224], 4, length: 4),               // multicast
        Block([240], 4, length: 4),               // reserved, and the limited broadcast
    ]

    /// IANA IPv6 Special-Purpose Address Registry entries inside 2000::/3 (everything outside it
    /// is refused already: unspecified, loopback, IPv4-mapped and -compatible, NAT64 64:ff9b::/96
    /// and /48, discard-only, unique local, link-local, multicast).
    static let specialIPv6: [Block] = [
        Block([0x20, 0x01, 0x00, 0x00], 23, length: 16),  // IETF protocol assignments (Teredo, ORCHID, benchmarking, …)
        Block([0x20, 0x01, 0x0D, 0xB8], 32, length: 16),  // documentation
        Block([0x20, 0x02], 16, length: 16),              // 6to4
        Block([0x3F, 0xFF, 0x00], 20, length: 16),        // documentation (RFC 9637)
    ]

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
