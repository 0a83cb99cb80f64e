import Foundation

/// The one place where stored events of an older `schema_version` are brought to the current
/// shape, so projections and deciders only ever see current payloads.
///
/// Each step takes an event type from version n to n + 1 as a JSON-object transform.
public struct Upcaster: Sendable {
    public typealias Step = @Sendable ([String: JSONValue]) throws -> [String: JSONValue]

    private var steps: [String: [Int16: Step]] = [:]

    public init() {}

    /// Registers how `type` at `version` becomes `version + 1`.
    public mutating func register(_ type: String, from version: Int16, _ step: @escaping Step) {
        steps[type, default: [:]][version] = step
    }

    public func currentVersion(of type: String) -> Int16 {
        var version: Int16 = 1
        while steps[type]?[version] != nil { version += 1 }
        return version
    }

    public enum Failure: Error, Equatable {
        case notAnObject(type: String)
        case newerThanKnown(type: String, version: Int16)
    }

    /// Upgrades a payload to the current version of its type; current payloads pass unchanged.
    public func upcast(type: String, version: Int16, data: Data) throws -> Data {
        let current = currentVersion(of: type)
        if version == current { return data }
        guard version < current else { throw Failure.newerThanKnown(type: type, version: version) }
        guard case .object(var object) = try JSONDecoder().decode(JSONValue.self, from: data) else {
            throw Failure.notAnObject(type: type)
        }
        var at = version
        while let step = steps[type]?[at] {
            object = try step(object)
            at += 1
        }
        return try JSONEncoder().encode(JSONValue.object(object))
    }
}

/// A JSON document, for transforms that must not lose fields they do not know.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    /// Integers stay exact (money in minor units, ids); only fractions become Double.
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
