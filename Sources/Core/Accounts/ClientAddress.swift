import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The part of a client's address that throttles count by. An IPv6 client is counted per /64
/// (the block one subscriber or host usually gets, so fresh addresses in it are the same client);
/// an IPv4 address, also one written as IPv4-mapped IPv6, is counted whole.
public enum ClientAddress {
    public static func throttleKey(_ address: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return String(address.prefix(64)) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
