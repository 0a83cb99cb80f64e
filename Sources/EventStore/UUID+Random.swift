import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UUID {
    /// A random (version 4) UUID from the system's generator. Foundation's `UUID()` opens
    /// /dev/urandom for every id on Linux; with an id per event, that open showed as 6 % of the
    /// append path's CPU in the concurrent-appends profile (issue 10). Ids come from a block of
    /// the kernel's random bytes read 4 KiB at a time: a system call for each id (two, through
    /// `SystemRandomNumberGenerator`) was 3–4 % of eight writers' appends (issue 29).
    public static func random() -> UUID {
        var uuid = RandomBytes.shared.next16()
        uuid.6 = (uuid.6 & 0x0F) | 0x40  // RFC 9562 version 4: random
        uuid.8 = (uuid.8 & 0x3F) | 0x80  // the RFC's variant
        return UUID(uuid: uuid)
    }
}

/// The kernel's random bytes, read a block at a time and each handed out once.
final class RandomBytes: Sendable {
    static let shared = RandomBytes()
    static let blockSize = 4_096

    private struct Block: ~Copyable {
        var bytes = [UInt8](repeating: 0, count: RandomBytes.blockSize)
        var used = RandomBytes.blockSize
    }

    private let block = Mutex(Block())

    func next16() -> uuid_t {
        block.withLock { block in
            if block.used + 16 > block.bytes.count {
                block.bytes.withUnsafeMutableBytes { Self.fill($0) }
                block.used = 0
            }
            var out: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &out) { target in
                block.bytes.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[block.used..<(block.used + 16)]))
                }
            }
            block.used += 16
            return out
        }
    }

    /// `arc4random_buf` (glibc 2.36 and later, as in Debian 12; macOS) reads the block with one
    /// getrandom(2) and stops the process rather than hand out weak bytes.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        if let start = buffer.baseAddress { arc4random_buf(start, buffer.count) }
    }
}
