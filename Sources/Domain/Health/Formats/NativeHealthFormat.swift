import Foundation

/// lifelog's own batch (`POST /api/v1/ingest/health`): samples, sleep, workouts and deletions,
/// each item as documented. An item the reader cannot take (a missing or mistyped field, a date
/// that is not RFC 3339, a NUL in a string it keeps) is that item's error; the rest of the batch
/// goes on. Fields it does not read are ignored, whatever they hold.
public enum NativeHealthFormat {
    public static func decode(_ body: Data) throws(HealthFormatError) -> HealthIntake {
        guard let object = JSONNode.parse(body)?.object else {
            throw HealthFormatError("the body must be a JSON object with samples, sleep, workouts and deletions")
        }
        // Absent is an empty list; anything else, null included, must be a list.
        for key in ["samples", "sleep", "workouts", "deletions"] where object[key] != nil && object[key]?.array == nil {
            throw HealthFormatError("\(key) must be an array")
        }
        var intake = HealthIntake()
        for (index, item) in (object["samples"]?.array ?? []).enumerated() {
            var reader = ItemReader(item, path: "samples[\(index)]", index: index)
            let metric = reader.string("metric"), value = reader.number("value"), unit = reader.optionalString("unit")
            let start = reader.instant("start"), end = reader.instant("end"), source = reader.source(), uuid = reader.optionalString("uuid")
            guard let metric, let value, let start, let end, let source, reader.errors.isEmpty else {
                intake.reject(reader.errors)
                continue
            }
            intake.samples.append(.init(uuid: uuid, metric: metric, value: value, unit: unit, start: start, end: end,
                                        source: source, path: reader.path))
        }
        for (index, item) in (object["sleep"]?.array ?? []).enumerated() {
            var reader = ItemReader(item, path: "sleep[\(index)]", index: index)
            let stage = reader.string("stage"), start = reader.instant("start"), end = reader.instant("end"), source = reader.source()
            let uuid = reader.optionalString("uuid")
            guard let stage, let start, let end, let source, reader.errors.isEmpty else {
                intake.reject(reader.errors)
                continue
            }
            intake.sleep.append(.init(uuid: uuid, stage: stage, start: start, end: end, source: source, path: reader.path))
        }
        for (index, item) in (object["workouts"]?.array ?? []).enumerated() {
            var reader = ItemReader(item, path: "workouts[\(index)]", index: index)
            let type = reader.string("type"), start = reader.instant("start"), end = reader.instant("end"), source = reader.source()
            let energy = reader.optionalNumber("active_energy_kcal"), distance = reader.optionalNumber("distance_m")
            let heartRate = reader.optionalNumber("avg_heart_rate"), uuid = reader.optionalString("uuid")
            guard let type, let start, let end, let source, reader.errors.isEmpty else {
                intake.reject(reader.errors)
                continue
            }
            intake.workouts.append(.init(uuid: uuid, type: type, start: start, end: end, activeEnergyKcal: energy,
                                         distanceM: distance, avgHeartRate: heartRate, source: source, path: reader.path))
        }
        for (index, item) in (object["deletions"]?.array ?? []).enumerated() {
            // Checked here, where the item's index is known, rather than among the rules.
            guard let uuid = item.string, HealthIntakeRules.normalizedUUID(uuid) != nil, !uuid.unicodeScalars.contains("\u{0}") else {
                let message = "must be a sample's uuid: 1 to \(HealthIntakeRules.maxUUIDLength) characters"
                intake.reject(HealthItemError(index: index, field: "deletions[\(index)]", message: message))
                continue
            }
            intake.deletions.append(uuid)
        }
        return intake
    }

    /// Reads one item's fields, collecting what is wrong with them.
    struct ItemReader {
        let object: JSONNode.Object?
        let path: String
        let index: Int
        var errors: [HealthItemError] = []

        init(_ item: JSONNode, path: String, index: Int) {
            object = item.object
            self.path = path
            self.index = index
            if object == nil { errors.append(HealthItemError(index: index, field: path, message: "must be an object")) }
        }

        mutating func fail(_ field: String, _ message: String) {
            errors.append(HealthItemError(index: index, field: "\(path).\(field)", message: message))
        }

        mutating func string(_ key: String) -> String? {
            guard let object else { return nil }
            guard let text = object[key]?.string, !text.isEmpty else { fail(key, "is required (a string)"); return nil }
            return kept(text, key)
        }

        /// Absent is nil; anything but a string (null included: nothing here is nullable) is the item's error.
        mutating func optionalString(_ key: String) -> String? {
            optionalString(key, in: object, field: key)
        }

        mutating func optionalString(_ key: String, in object: JSONNode.Object?, field: String) -> String? {
            guard let raw = object?[key] else { return nil }
            guard let text = raw.string else { fail(field, raw.isNull ? "must not be null" : "must be a string"); return nil }
            return kept(text, field)
        }

        /// A string the item keeps: no NUL, which nothing downstream can store.
        mutating func kept(_ text: String, _ field: String) -> String? {
            // A NUL scalar is the byte 0 in UTF-8, and no other scalar has that byte.
            guard !text.utf8.contains(0) else { fail(field, "contains a NUL character"); return nil }
            return text
        }

        mutating func number(_ key: String) -> Double? {
            guard let object else { return nil }
            guard let value = object[key]?.number else { fail(key, "is required (a number)"); return nil }
            return value
        }

        mutating func optionalNumber(_ key: String) -> Double? {
            guard let raw = object?[key] else { return nil }
            guard let value = raw.number else { fail(key, raw.isNull ? "must not be null" : "must be a number"); return nil }
            return value
        }

        mutating func instant(_ key: String) -> Date? {
            guard let object else { return nil }
            guard let text = object[key]?.string else { fail(key, "is required (an RFC 3339 instant)"); return nil }
            guard let date = RFC3339.parse(text) else { fail(key, "must be an RFC 3339 instant with an offset, such as 2024-01-15T07:00:00Z"); return nil }
            return date
        }

        mutating func source() -> HealthSource? {
            guard let object else { return nil }
            // Characters are counted only for a name of more than 200 bytes: no name has more characters than bytes.
            guard let source = object["source"]?.object, let name = source["name"]?.string, !name.isEmpty,
                  name.utf8.count <= 200 || name.count <= 200 else {
                fail("source", "is required: {name, kind}")
                return nil
            }
            let before = errors.count
            let kept = kept(name, "source.name")
            let kindText = optionalString("kind", in: source, field: "source.kind"), bundleId = optionalString("bundle_id", in: source, field: "source.bundle_id")
            guard let name = kept, errors.count == before else { return nil }
            guard let kind = kindText.map({ HealthSourceKind(rawValue: $0) }) ?? .guessed(fromName: name) else {
                fail("source.kind", "must be one of \(HealthSourceKind.allCases.map(\.rawValue).joined(separator: ", "))")
                return nil
            }
            return HealthSource(name: name, kind: kind, bundleId: bundleId)
        }

        /// A JSON number (not a boolean, which JSONSerialization also gives as NSNumber).
        static func double(_ value: Any?) -> Double? {
            guard let number = value as? NSNumber, !String(describing: type(of: number)).contains("Boolean") else { return nil }
            return number.doubleValue
        }
    }
}

/// A body that is not the format at all (not JSON, or not its top-level shape): 400.
public struct HealthFormatError: ProblemDescribing, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var status: Int { 400 }
    public var slug: String { "malformed-request" }
    public var title: String { "Malformed request" }
    public var detail: String { message }
}
