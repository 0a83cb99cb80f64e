import Domain
import Foundation
@testable import Projections
import Testing

/// The records projector reads a stored batch's columns with `JSONNode.Cursor`, field by field:
/// the same columns as reading the whole tree and looking each field up, and the same payloads
/// refused. No database: the statement's parameters are what is compared.
@Suite struct HealthRecordColumnsTests {
    /// The columns as the whole tree gives them (how they were read before the cursor).
    static func fromTree(_ json: String) throws -> String {
        guard let object = JSONNode.parse(json)?.object else { throw CorruptData("health batch", "not a JSON object") }
        func float(_ node: JSONNode?) -> Double? { node?.number.map { $0 + 0 } }
        func integer(_ node: JSONNode?) -> Int64? { node?.number.flatMap { Int64(exactly: $0) } }
        var rows: [String] = []
        var replaced: [String] = []
        for removed in object["replaced"]?.array ?? [] {
            guard let key = removed.object?["key"]?.string else { throw CorruptData("health batch", "a replaced item without a key") }
            replaced.append(key)
        }
        for element in object["records"]?.array ?? [] {
            guard let record = element.object, let key = record["key"]?.string, let kind = record["kind"]?.string,
                  let name = record["name"]?.string, let start = integer(record["start_seconds"]), let end = integer(record["end_seconds"]),
                  let date = record["date"]?.string, let sourceName = record["source_name"]?.string,
                  let sourceKind = record["source_kind"]?.string, let series = record["series"]?.string
            else { throw CorruptData("health batch", "a record without a required field") }
            let optionals: [Any?] = [record["uuid"]?.string, record["source_bundle_id"]?.string, float(record["value"]), float(record["active_energy_kcal"]),
                                     float(record["distance_m"]), float(record["avg_heart_rate"]), float(record["min"]), float(record["max"])]
            rows.append("\(key) \(kind) \(name) \(start) \(end) \(date) \(sourceName) \(sourceKind) \(series) \(optionals.map { "\($0 ?? "nil")" })")
        }
        let device = object["device_id"]?.string.flatMap(UUID.init(uuidString:))
        return "\(device.map(\.uuidString) ?? "-") \(replaced) \(rows)"
    }

    static func fromCursor(_ json: String) throws -> String {
        let c = try HealthRecordColumns(json: json)
        var rows: [String] = []
        for i in c.keys.indices {
            let optionals: [Any?] = [c.uuids[i], c.bundles[i], c.values[i], c.energies[i], c.distances[i], c.heartRates[i], c.lows[i], c.highs[i]]
            rows.append("\(c.keys[i]) \(c.kinds[i]) \(c.names[i]) \(c.starts[i]) \(c.ends[i]) \(c.dates[i]) \(c.sourceNames[i]) \(c.sourceKinds[i]) \(c.series[i]) \(optionals.map { "\($0 ?? "nil")" })")
        }
        return "\(c.device.map(\.uuidString) ?? "-") \(c.replacedKeys) \(rows)"
    }

    @Test func aStoredBatchGivesTheColumnsItsRecordsHold() throws {
        let day = try #require(LocalDate("2024-03-01"))
        let watch = HealthSource(name: "Watch \"Ultra\" é", kind: .watch, bundleId: "com.example.watch")
        let records = [
            HealthRecord(uuid: "u-1", kind: .quantity, name: "steps", value: 120, startSeconds: 1_709_251_200, endSeconds: 1_709_251_260,
                         date: day, source: watch, series: .sample, min: -0.0, max: 3.5),
            HealthRecord(uuid: nil, kind: .workout, name: "running", value: nil, startSeconds: 1_709_200_000, endSeconds: 1_709_203_600,
                         date: day, source: watch, series: .summary, workout: .init(activeEnergyKcal: 300.5, distanceM: 5_000, avgHeartRate: 151)),
        ]
        let device = UUID()
        let event = HealthEvent.RecordsStored(deviceId: device, records: records, replaced: [.init(key: "old", kind: .quantity, name: "steps", date: day)],
                                              intake: .init(format: "native", received: 2, duplicates: 0), receivedAt: 1_709_300_000)
        let json = try event.encodedJSON()
        let columns = try HealthRecordColumns(json: json)
        #expect(columns.keys == records.map(\.key) && columns.uuids == ["u-1", nil] && columns.device == device && columns.replacedKeys == ["old"])
        #expect(columns.energies == [nil, 300.5] && columns.lows == [0, nil] && columns.bundles == ["com.example.watch", "com.example.watch"])
        #expect(try Self.fromCursor(json) == Self.fromTree(json))
    }

    /// Random payloads with fields written twice, of the wrong type, null or missing, and some
    /// not JSON: the same columns, or both refused.
    @Test func randomPayloadsGiveWhatTheWholeTreeGives() {
        var seed: UInt64 = 0xC0FFEE
        func next(_ count: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(count))
        }
        func pick<T>(_ options: [T]) -> T { options[next(options.count)] }
        func scalar() -> String { pick(["\"k1\"", "\"steps\"", "12", "-0", "1.5", "1e3", "2.5e0", "null", "true", "{}", "[]", "\"\\u00e9\""]) }
        let required = ["key", "kind", "name", "start_seconds", "end_seconds", "date", "source_name", "source_kind", "series"]
        let optional = ["uuid", "source_bundle_id", "value", "active_energy_kcal", "distance_m", "avg_heart_rate", "min", "max", "other"]
        func record() -> String {
            if next(15) == 0 { return scalar() }
            var fields = required.filter { _ in next(60) != 0 }.map { name in
                "\"\(name)\":" + (name.hasSuffix("seconds") ? (next(30) == 0 ? pick(["1.5", "\"12\""]) : pick(["12", "1e3", "0"]))
                                                : (next(30) == 0 ? "3" : pick(["\"a\"", "\"b\"", "\"\\u00e9\""])))
            }
            fields += (0..<next(4)).map { _ in "\"\(next(12) == 0 ? pick(required) : pick(optional))\":\(scalar())" }
            // In an order of the test's own (the documents are the same every run).
            for index in fields.indices.reversed() { fields.swapAt(index, next(index + 1)) }
            return "{" + fields.joined(separator: ",") + "}"
        }
        func member() -> String {
            switch next(4) {
            case 0, 1: return "\"records\":" + (next(10) == 0 ? scalar() : "[" + (0..<next(4)).map { _ in record() }.joined(separator: ",") + "]")
            case 2: return "\"replaced\":" + (next(6) == 0 ? scalar() : "[" + (0..<next(3)).map { _ in
                next(8) == 0 ? scalar() : "{\"key\":\(pick(["\"k\"", "\"j\"", "1", "null"]))}" }.joined(separator: ",") + "]")
            default: return "\"device_id\":" + pick(["\"6F9619FF-8B86-D011-B42D-00C04FC964FF\"", "\"nope\"", "7", "null"])
            }
        }
        var stored = 0
        for _ in 0..<3_000 {
            var json = "{" + (0..<next(4)).map { _ in member() }.joined(separator: ",") + "}"
            if next(30) == 0 { json.removeLast() }
            let tree = try? Self.fromTree(json)
            let cursor = try? Self.fromCursor(json)
            #expect(cursor == tree, "\(json)")
            stored += (try? HealthRecordColumns(json: json))?.keys.isEmpty == false ? 1 : 0
        }
        #expect(stored > 300)
    }
}
