import Foundation

/// A device's name and kind, as a client sends them (`DeviceDraft`: `POST /devices`, or `/pair`
/// with `device_name`) and as the rules take them (`NewDevice`: the name trimmed, a
/// `DeviceKind`), which `NewDevice.validated(from:)` makes of a draft.
public struct DeviceFields<Kind: Sendable>: Sendable {
    public var name: String
    public var kind: Kind
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

public typealias DeviceDraft = DeviceFields<String>
public typealias NewDevice = DeviceFields<DeviceKind>

extension DeviceFields: Decodable where Kind: Decodable {}
extension DeviceFields: Equatable where Kind: Equatable {}

extension DeviceFields: ValidatedInput where Kind == DeviceKind {
    public static func validated(from draft: DeviceDraft) -> Result<NewDevice, ValidationFailure> {
        var errors = FieldErrors()
        let name = draft.name.trimmingCharacters(in: .whitespacesAndNewlines)
        errors.add(TextRules.labelError(name, field: "name", maxLength: 100))
        let kind = errors.parse(draft.kind, field: "kind", rule: "must be one of " + DeviceKind.allCases.map(\.rawValue).joined(separator: ", "),
                                DeviceKind.init(rawValue:))
        return errors.result { kind.map { NewDevice(name: name, kind: $0) } }
    }
}
