import CZlib
import Crypto
import Foundation
import NIOCore
import Synchronization

/// An event's payload and metadata as the log stores them (issue 29): AES-GCM under the owner's
/// data key, bound to the event (`Binding`: a sealed value copied onto another event, or an event
/// given another type, owner or stream, does not open).
///
/// Layout: one format byte, then AES-GCM's nonce (12 bytes), ciphertext and tag (16). The
/// plaintext is the payload's length (4 bytes, big-endian), the payload's and the metadata's
/// UTF-8. Format 2 deflates that plaintext first (zlib), behind its length: ciphertext does not
/// compress, and a health batch's JSON shrinks to a fifth, which the log would otherwise write
/// out in full.
public enum SealedPayload {
    static let plain: UInt8 = 1
    static let deflated: UInt8 = 2
    /// Smaller payloads are not worth deflating (an event of a habit log is ~200 bytes).
    static let deflateFrom = 1_024
    /// This process's nonces (`NonceSequence`): a random nonce cost a system call per event.
    static let nonces = NonceSequence()

    public struct Unreadable: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { "a sealed event cannot be opened: \(reason)" }
    }

    /// PostgreSQL no longer parses payloads (it stores them sealed), so the store refuses here
    /// what jsonb refused before: a payload that is not a JSON object, and NUL characters
    /// (`\u0000`), which no text column can take. Payloads are made by `JSONEncoder`; this is
    /// the boundary's check of their shape, not a second parse.
    static func checkStorable(_ data: String) throws {
        var data = data
        let ok = data.withUTF8 { bytes -> Bool in
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }),
                  bytes[first] == UInt8(ascii: "{"), bytes[last] == UInt8(ascii: "}"), first < last else { return false }
            var index = first
            while index + 5 < bytes.count {
                // `\u0000` in either case; a backslash that is itself escaped (`\\u0000`) is text.
                if bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] | 0x20 == UInt8(ascii: "u"),
                   bytes[index + 2] == 0x30, bytes[index + 3] == 0x30, bytes[index + 4] == 0x30, bytes[index + 5] == 0x30 {
                    return false
                }
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            return true
        }
        if !ok { throw EventStoreError.invalidEventData("not a JSON object, or a NUL character (\\u0000) in it") }
    }

    /// What a sealed payload is bound to (AES-GCM's authenticated data, beside the format byte):
    /// the columns of its row that say what it is. Not its stream version, which the database
    /// gives it after it is sealed.
    public struct Binding: Sendable {
        public var eventId: UUID
        public var ownerId: UUID
        public var streamId: String
        public var type: String
        public var schemaVersion: Int16

        public init(eventId: UUID, ownerId: UUID, streamId: String, type: String, schemaVersion: Int16) {
            self.eventId = eventId
            self.ownerId = ownerId
            self.streamId = streamId
            self.type = type
            self.schemaVersion = schemaVersion
        }

        /// Built in one allocation: it is made for every event sealed and opened (its several
        /// arrays were 2 % of eight writers' appends).
        func authenticated(format: UInt8) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(1 + 16 + 16 + 2 + 2 + streamId.utf8.count + 2 + type.utf8.count)
            bytes.append(format)
            withUnsafeBytes(of: eventId.uuid) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: ownerId.uuid) { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(truncatingIfNeeded: schemaVersion >> 8))
            bytes.append(UInt8(truncatingIfNeeded: schemaVersion))
            // Lengths first: no two (stream, type) pairs read as the same bytes.
            func appendCounted(_ text: String) {
                let count = text.utf8.count
                bytes.append(UInt8(truncatingIfNeeded: count >> 8))
                bytes.append(UInt8(truncatingIfNeeded: count))
                bytes.append(contentsOf: text.utf8)
            }
            appendCounted(streamId)
            appendCounted(type)
            return bytes
        }
    }

    public static func seal(data: String, metadata: String, binding: Binding, key: SymmetricKey) throws -> ByteBuffer {
        var plaintext = [UInt8]()
        plaintext.reserveCapacity(4 + data.utf8.count + metadata.utf8.count)
        let length = UInt32(data.utf8.count)
        plaintext.append(contentsOf: [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
        plaintext.append(contentsOf: data.utf8)
        plaintext.append(contentsOf: metadata.utf8)
        var format = plain
        if plaintext.count >= deflateFrom, let smaller = deflate(plaintext), smaller.count < plaintext.count {
            plaintext = smaller
            format = deflated
        }
        let box = try AES.GCM.seal(plaintext, using: key, nonce: try nonces.next(), authenticating: binding.authenticated(format: format))
        var sealed = ByteBuffer()
        sealed.reserveCapacity(1 + 12 + plaintext.count + 16)
        sealed.writeInteger(format)
        if let combined = box.combined {
            // Nonce, ciphertext and tag as the box holds them (always, with a 12-byte nonce): one copy, not three.
            sealed.writeContiguousBytes(combined)
        } else {
            sealed.writeContiguousBytes(box.nonce)
            sealed.writeContiguousBytes(box.ciphertext)
            sealed.writeContiguousBytes(box.tag)
        }
        return sealed
    }

    public static func open(_ sealed: ByteBuffer, binding: Binding, key: SymmetricKey) throws -> (data: String, metadata: String) {
        var sealed = sealed
        guard let format = sealed.readInteger(as: UInt8.self), format == plain || format == deflated,
              let nonceBytes = sealed.readBytes(length: 12), sealed.readableBytes >= 16,
              let body = sealed.readBytes(length: sealed.readableBytes - 16), let tag = sealed.readBytes(length: 16) else {
            throw Unreadable(reason: "not a sealed payload")
        }
        let opened: Data
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonceBytes), ciphertext: body, tag: tag)
            opened = try AES.GCM.open(box, using: key, authenticating: binding.authenticated(format: format))
        } catch {
            throw Unreadable(reason: "its key, or the event it was sealed for, does not match")
        }
        var plaintext = [UInt8](opened)
        if format == deflated {
            guard let inflated = inflate(plaintext) else { throw Unreadable(reason: "its compressed payload is damaged") }
            plaintext = inflated
        }
        guard plaintext.count >= 4 else { throw Unreadable(reason: "too short") }
        let length = Int(plaintext[0]) << 24 | Int(plaintext[1]) << 16 | Int(plaintext[2]) << 8 | Int(plaintext[3])
        guard length <= plaintext.count - 4 else { throw Unreadable(reason: "its payload length is wrong") }
        let data = String(decoding: plaintext[4..<(4 + length)], as: UTF8.self)
        let metadata = String(decoding: plaintext[(4 + length)...], as: UTF8.self)
        return (data, metadata)
    }

    /// zlib at its fastest level, behind the input's length (4 bytes, big-endian), which
    /// `inflate` needs to size its output.
    static func deflate(_ input: [UInt8]) -> [UInt8]? {
        var bound = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(bound) + 4)
        let count = UInt32(input.count)
        output[0] = UInt8(count >> 24)
        output[1] = UInt8((count >> 16) & 0xFF)
        output[2] = UInt8((count >> 8) & 0xFF)
        output[3] = UInt8(count & 0xFF)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                compress2(out.baseAddress.map { $0 + 4 }, &bound, source.baseAddress, uLong(input.count), 1)
            }
        }
        guard status == Z_OK else { return nil }
        output.removeLast(output.count - 4 - Int(bound))
        return output
    }

    static func inflate(_ input: [UInt8]) -> [UInt8]? {
        guard input.count >= 4 else { return nil }
        let count = Int(input[0]) << 24 | Int(input[1]) << 16 | Int(input[2]) << 8 | Int(input[3])
        var size = uLong(count)
        var output = [UInt8](repeating: 0, count: count)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                uncompress(out.baseAddress, &size, source.baseAddress.map { $0 + 4 }, uLong(input.count - 4))
            }
        }
        guard status == Z_OK, Int(size) == count else { return nil }
        return output
    }
}

extension UUID {
    /// The 16 bytes of the UUID, as AES-GCM's authenticated data.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}

/// AES-GCM nonces as NIST SP 800-38D's deterministic construction gives them: a fixed field
/// drawn at random for this process (64 bits), then an invocation counter (32 bits). Within a
/// process no nonce repeats (a new field is drawn when the counter wraps); two processes sealing
/// under one owner's key differ in their fields, which collide with odds of about n² / 2⁶⁵.
final class NonceSequence: Sendable {
    private let state = Mutex<(field: UInt64, counter: UInt32)>((UInt64.random(in: .min ... .max), 0))

    func next() throws -> AES.GCM.Nonce {
        let (field, counter) = state.withLock { state in
            if state.counter == .max { state = (UInt64.random(in: .min ... .max), 0) }
            state.counter += 1
            return state
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(12)
        withUnsafeBytes(of: field.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: counter.bigEndian) { bytes.append(contentsOf: $0) }
        return try AES.GCM.Nonce(data: bytes)
    }
}
