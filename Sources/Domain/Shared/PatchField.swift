/// One field of a partial update, as JSON Merge Patch (RFC 7396) reads it: absent keeps the
/// stored value, `null` clears it, anything else sets it.
public enum PatchField<Value: Sendable>: Sendable {
    case keep
    case clear
    case set(Value)

    /// The value after the patch, given the stored one.
    public func applied(to current: Value?) -> Value? {
        switch self {
        case .keep: current
        case .clear: nil
        case .set(let value): value
        }
    }

    public var newValue: Value? {
        if case .set(let value) = self { value } else { nil }
    }

    public var isClear: Bool {
        if case .clear = self { true } else { false }
    }
}

extension PatchField: Equatable where Value: Equatable {}

extension KeyedDecodingContainer {
    /// A field the document marks nullable outside a patch: `null` is the same as leaving it out.
    /// (Elsewhere an optional field sent as `null` is refused; see the API's `StrictDecoder`.)
    public func decodeNullable<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decode(T.self, forKey: key)
    }

    public func decodePatch<T: Decodable & Sendable>(_ type: T.Type, forKey key: Key) throws -> PatchField<T> {
        guard contains(key) else { return .keep }
        if try decodeNil(forKey: key) { return .clear }
        return .set(try decode(T.self, forKey: key))
    }
}
