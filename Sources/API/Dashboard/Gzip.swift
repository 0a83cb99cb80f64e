import CZlib
import NIOCore

/// gzip (RFC 1952) through the system's zlib: the dashboard's files are compressed once when
/// they are loaded, and large JSON answers when the client accepts it.
enum Gzip {
    /// The gzip form of `bytes`; nil if zlib refuses (it never should), and the caller sends them as they are.
    static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        guard czlib_gzip_init(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count))) + 32
        var output = [UInt8](repeating: 0, count: bound)
        var input = bytes
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeLast(bound - Int(stream.total_out))
        return output
    }

    static func compress(_ buffer: ByteBuffer) -> ByteBuffer? {
        compress(Array(buffer.readableBytesView)).map { ByteBuffer(bytes: $0) }
    }

    /// Whether an `Accept-Encoding` value accepts gzip (a `q=0` refuses it).
    static func accepted(_ header: String?) -> Bool {
        guard let header else { return false }
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" else { continue }
            let refused = parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "").hasPrefix("q=0") && !$0.contains(where: { "123456789".contains($0) }) }
            return !refused
        }
        return false
    }
}
