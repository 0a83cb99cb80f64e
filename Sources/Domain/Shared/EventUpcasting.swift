import Foundation

/// The registry of upcasting steps for every event type. When an event's payload changes shape,
/// bump the schema version it is written with and register the step from the old one here.
public enum EventUpcasting {
    public static let upcaster: Upcaster = Upcaster()

    /// Decodes a stored payload of `type` at `version` into the current shape of `T`.
    public static func decode<T: Decodable>(_ as: T.Type, type: String, version: Int16, json: String) throws -> T {
        let current = try upcaster.upcast(type: type, version: version, data: Data(json.utf8))
        return try EventCoding.decode(T.self, from: String(decoding: current, as: UTF8.self))
    }
}
