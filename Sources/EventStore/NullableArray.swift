import NIOCore
import PostgresNIO

/// An array parameter whose elements may be NULL, in PostgreSQL's binary array format:
/// PostgresNIO encodes arrays of non-optional elements only. For columns sent as arrays
/// (`unnest`) rather than as JSON that PostgreSQL would have to parse.
public struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable & Sendable>: PostgresNonThrowingEncodable, Sendable {
    public var elements: [Element?]

    public init(_ elements: [Element?]) {
        self.elements = elements
    }

    public static var psqlType: PostgresDataType { Element.psqlArrayType }
    public static var psqlFormat: PostgresFormat { .binary }

    public func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (none when empty), whether any element is NULL, the elements' type.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains(where: { $0 == nil }) ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        // The one dimension's length and lower bound, then each element as length and bytes (-1: NULL).
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthAt = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthAt)
        }
    }
}
