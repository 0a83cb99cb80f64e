import Domain
import EventStore
import Foundation

/// A stored batch's records (`health.records_stored`, current shape) as one array per column:
/// the records projector's parameters. PostgreSQL reads binary arrays as they are; the payload
/// sent as JSON, it parsed 140 KB per event while planning the statement, on the user's path
/// (each of a user's batches waits for the one before it): a fifth of a year's first sync.
struct HealthRecordColumns {
    var keys: [String] = [], uuids: [String?] = [], kinds: [String] = [], names: [String] = []
    var values: [Double?] = [], starts: [Int64] = [], ends: [Int64] = [], dates: [String] = []
    var sourceNames: [String] = [], sourceKinds: [String] = [], bundles: [String?] = [], series: [String] = []
    var energies: [Double?] = [], distances: [Double?] = [], heartRates: [Double?] = [], lows: [Double?] = [], highs: [Double?] = []
    var device: UUID?
    /// The keys of what the records replace (under another key or date).
    var replacedKeys: [String] = []
    /// The event says every record was new when it was decided (`HealthEvent.RecordsStored.allNew`).
    var allNew = false

    /// The columns of `json`; throws when a record lacks a field the table requires. Read with
    /// `JSONNode.Cursor`, each record's fields straight into the columns (a field written twice
    /// counts as its last value, as `JSONNode` reads it).
    init(json: String) throws {
        // Per field: only the last of a field written twice counts, its faults with it.
        var replacedFault: String?, recordsFault: String?
        var device: UUID?, replacedKeys: [String] = [], allNew = false, columns = Self.empty
        let read = JSONNode.Cursor.read(json) { cursor -> Bool? in
            let read = cursor.object { cursor, key in
                if key == "device_id" {
                    guard let node = cursor.value() else { return false }
                    device = node.string.flatMap(UUID.init(uuidString:))
                    return true
                }
                if key == "all_new" {
                    guard let node = cursor.value() else { return false }
                    allNew = node.isTrue
                    return true
                }
                if key == "replaced" {
                    (replacedKeys, replacedFault) = ([], nil)
                    guard !cursor.null() else { return true }
                    guard cursor.peek() == UInt8(ascii: "[") else { return cursor.skip() }
                    return cursor.array { cursor in
                        var removed: String?
                        guard cursor.peek() == UInt8(ascii: "{") else {
                            replacedFault = "a replaced item without a key"
                            return cursor.skip()
                        }
                        let read = cursor.object { cursor, key in
                            guard key == "key" else { return cursor.skip() }
                            guard let node = cursor.value() else { return false }
                            removed = node.string
                            return true
                        }
                        if let removed { replacedKeys.append(removed) } else { replacedFault = "a replaced item without a key" }
                        return read
                    }
                }
                guard key == "records" else { return cursor.skip() }
                (columns, recordsFault) = (Self.empty, nil)
                guard cursor.peek() == UInt8(ascii: "[") else { return cursor.skip() }
                return cursor.array { cursor in
                    guard cursor.peek() == UInt8(ascii: "{") else {
                        recordsFault = "a record without a required field"
                        return cursor.skip()
                    }
                    var record = Fields()
                    guard cursor.object({ cursor, key in record.read(key, &cursor) }) else { return false }
                    if !columns.append(record) { recordsFault = "a record without a required field" }
                    return true
                }
            }
            return read ? true : nil
        }
        guard read != nil else { throw CorruptData("health batch", "not a JSON object") }
        if let fault = replacedFault ?? recordsFault { throw CorruptData("health batch", fault) }
        self = columns
        self.device = device
        self.replacedKeys = replacedKeys
        self.allNew = allNew
    }

    private init() {}
    private static var empty: HealthRecordColumns { HealthRecordColumns() }

    /// One record's fields as read; the last of a field written twice.
    struct Fields {
        var key: String?, uuid: String?, kind: String?, name: String?, start: Int64?, end: Int64?, date: String?
        var sourceName: String?, sourceKind: String?, bundle: String?, series: String?
        var value: Double?, energy: Double?, distance: Double?, heartRate: Double?, low: Double?, high: Double?

        /// Reads the value of the member named `key`, or passes over it; false when it is not JSON.
        mutating func read(_ key: JSONNode.Cursor.Key, _ cursor: inout JSONNode.Cursor) -> Bool {
            let known = key == "key" || key == "uuid" || key == "kind" || key == "name" || key == "start_seconds" || key == "end_seconds"
                || key == "date" || key == "source_name" || key == "source_kind" || key == "source_bundle_id" || key == "series"
                || key == "value" || key == "active_energy_kcal" || key == "distance_m" || key == "avg_heart_rate" || key == "min"
                || key == "max"
            guard known else { return cursor.skip() }
            guard let node = cursor.value() else { return false }
            if key == "key" { self.key = node.string } else if key == "uuid" { uuid = node.string } else if key == "kind" { kind = node.string }
            else if key == "name" { name = node.string } else if key == "start_seconds" { start = HealthRecordColumns.integer(node) }
            else if key == "end_seconds" { end = HealthRecordColumns.integer(node) } else if key == "date" { date = node.string }
            else if key == "source_name" { sourceName = node.string } else if key == "source_kind" { sourceKind = node.string }
            else if key == "source_bundle_id" { bundle = node.string } else if key == "series" { series = node.string }
            else if key == "value" { value = HealthRecordColumns.float(node) } else if key == "active_energy_kcal" { energy = HealthRecordColumns.float(node) }
            else if key == "distance_m" { distance = HealthRecordColumns.float(node) } else if key == "avg_heart_rate" { heartRate = HealthRecordColumns.float(node) }
            else if key == "min" { low = HealthRecordColumns.float(node) } else { high = HealthRecordColumns.float(node) }
            return true
        }
    }

    /// Adds a record's row; false when it lacks a field the table requires.
    mutating func append(_ record: Fields) -> Bool {
        guard let key = record.key, let kind = record.kind, let name = record.name, let start = record.start, let end = record.end,
              let date = record.date, let sourceName = record.sourceName, let sourceKind = record.sourceKind, let series = record.series
        else { return false }
        keys.append(key); kinds.append(kind); names.append(name); starts.append(start); ends.append(end); dates.append(date)
        sourceNames.append(sourceName); sourceKinds.append(sourceKind); self.series.append(series)
        uuids.append(record.uuid); bundles.append(record.bundle)
        values.append(record.value); energies.append(record.energy); distances.append(record.distance); heartRates.append(record.heartRate)
        lows.append(record.low); highs.append(record.high)
        return true
    }

    /// A number as the column keeps it: -0 as 0, as jsonb's numeric (which has no -0) stored it.
    static func float(_ node: JSONNode) -> Double? {
        node.number.map { $0 + 0 }
    }

    static func integer(_ node: JSONNode) -> Int64? {
        node.number.flatMap { Int64(exactly: $0) }
    }
}
