import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The proxies whose `X-Forwarded-For` the server believes (`TRUSTED_PROXIES`: addresses and
/// CIDR ranges, IPv4 or IPv6). Behind a proxy every connection comes from the proxy, so without
/// this the per-address throttles count every client as one; with it, a request from a trusted
/// peer is counted by the rightmost `X-Forwarded-For` hop that is not itself trusted (the hops
/// to its left were written by the client and prove nothing). From any other peer the header is
/// ignored, so a client cannot choose its own address.
public struct TrustedProxies: Sendable, Equatable {
    /// A CIDR block as 16 bytes (IPv4 as IPv4-mapped IPv6) and its prefix length over them.
    struct Block: Sendable, Equatable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            let whole = prefix / 8, rest = prefix % 8
            guard address[0..<whole] == bytes[0..<whole] else { return false }
            guard rest > 0 else { return true }
            let mask = UInt8(0xFF) << (8 - rest)
            return address[whole] & mask == bytes[whole] & mask
        }
    }

    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    let ranges: [Block]

    /// Trusts no proxy: every request is counted by its connection's address (the default).
    public static let none = TrustedProxies(ranges: [])

    public var isEmpty: Bool { ranges.isEmpty }

    init(ranges: [Block]) { self.ranges = ranges }

    /// `127.0.0.1, 10.0.0.0/8, ::1, fd00::/8`: commas or spaces between entries.
    public init(parsing text: String) throws(Invalid) {
        var ranges: [Block] = []
        for entry in text.split(whereSeparator: { $0 == "," || $0.isWhitespace }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let (bytes, isIPv4) = Self.parse(parts[0]) else {
                throw Invalid(description: "TRUSTED_PROXIES: \(entry.prefix(60)) is not an IP address or CIDR range")
            }
            let width = isIPv4 ? 32 : 128
            var prefix = width
            if parts.count == 2 {
                guard parts[1].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isNumber), let bits = Int(parts[1]), (0...width).contains(bits) else {
                    throw Invalid(description: "TRUSTED_PROXIES: the prefix of \(entry.prefix(60)) must be from 0 to \(width)")
                }
                prefix = bits
            }
            ranges.append(Block(bytes: bytes, prefix: prefix + (isIPv4 ? 96 : 0)))
        }
        self.ranges = ranges
    }

    /// Whether `address` is one of the trusted proxies.
    public func contains(_ address: String) -> Bool {
        guard let (bytes, _) = Self.parse(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The address to count a request by: its peer, or, when the peer is a trusted proxy, the
    /// rightmost hop of `X-Forwarded-For` (every line of it, in order) that is not trusted. A hop
    /// that is not an address ends the walk at the last trusted one.
    public func client(peer: String, forwardedFor: [String]) -> String {
        guard contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { Self.withoutPort($0.trimmingCharacters(in: .whitespaces)) }
        var current = peer
        for hop in hops.reversed() {
            guard let (bytes, _) = Self.parse(hop) else { return current }
            guard ranges.contains(where: { $0.contains(bytes) }) else { return hop }
            current = hop
        }
        return current
    }

    /// `[::1]:443` → `::1`, `192.0.2.1:8080` → `192.0.2.1` (some proxies add the port).
    static func withoutPort(_ hop: String) -> String {
        if hop.hasPrefix("["), let end = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<end])
        }
        let colons = hop.filter { $0 == ":" }.count
        if colons == 1, let colon = hop.firstIndex(of: ":") { return String(hop[..<colon]) }
        return hop
    }

    /// 16 bytes (IPv4 mapped into IPv6), and whether it was written as IPv4.
    static func parse(_ text: String) -> ([UInt8], Bool)? {
        var bytes = [UInt8](repeating: 0, count: 16)
        if !text.contains(":") {
            var four = [UInt8](repeating: 0, count: 4)
            guard inet_pton(AF_INET, text, &four) == 1 else { return nil }
            bytes[10] = 0xFF
            bytes[11] = 0xFF
            bytes.replaceSubrange(12..<16, with: four)
            return (bytes, true)
        }
        guard inet_pton(AF_INET6, text, &bytes) == 1 else { return nil }
        return (bytes, false)
    }
}
