import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's generator. Foundation's `UUID()` opens
    /// /dev/urandom for every id on Linux; with an id per event, that open showed as 6 % of the
    /// append path's CPU in the concurrent-appends profile (issue 10).
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = (UInt8(truncatingIfNeeded: high >> 56), UInt8(truncatingIfNeeded: high >> 48), UInt8(truncatingIfNeeded: high >> 40),
                     UInt8(truncatingIfNeeded: high >> 32), UInt8(truncatingIfNeeded: high >> 24), UInt8(truncatingIfNeeded: high >> 16),
                     UInt8(truncatingIfNeeded: high >> 8), UInt8(truncatingIfNeeded: high),
                     UInt8(truncatingIfNeeded: low >> 56), UInt8(truncatingIfNeeded: low >> 48), UInt8(truncatingIfNeeded: low >> 40),
                     UInt8(truncatingIfNeeded: low >> 32), UInt8(truncatingIfNeeded: low >> 24), UInt8(truncatingIfNeeded: low >> 16),
                     UInt8(truncatingIfNeeded: low >> 8), UInt8(truncatingIfNeeded: low))
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // RFC 9562 version 4: random
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // the RFC's variant
        return UUID(uuid: bytes)
    }
}
