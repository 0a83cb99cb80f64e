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

    /// The columns of `json`; throws when a record lacks a field the table requires.
    init(json: String) throws {
        guard let object = JSONNode.parse(json)?.object else { throw CorruptData("health batch", "not a JSON object") }
        device = object["device_id"]?.string.flatMap(UUID.init(uuidString:))
        for removed in object["replaced"]?.array ?? [] {
            guard let key = removed.object?["key"]?.string else { throw CorruptData("health batch", "a replaced item without a key") }
            replacedKeys.append(key)
        }
        let records = object["records"]?.array ?? []
        reserve(records.count)
        for element in records {
            guard let record = element.object, let key = record["key"]?.string, let kind = record["kind"]?.string,
                  let name = record["name"]?.string, let start = Self.integer(record["start_seconds"]), let end = Self.integer(record["end_seconds"]),
                  let date = record["date"]?.string, let sourceName = record["source_name"]?.string,
                  let sourceKind = record["source_kind"]?.string, let series = record["series"]?.string
            else { throw CorruptData("health batch", "a record without a required field") }
            keys.append(key); kinds.append(kind); names.append(name); starts.append(start); ends.append(end); dates.append(date)
            sourceNames.append(sourceName); sourceKinds.append(sourceKind); self.series.append(series)
            uuids.append(record["uuid"]?.string); bundles.append(record["source_bundle_id"]?.string)
            values.append(Self.float(record["value"])); energies.append(Self.float(record["active_energy_kcal"]))
            distances.append(Self.float(record["distance_m"])); heartRates.append(Self.float(record["avg_heart_rate"]))
            lows.append(Self.float(record["min"])); highs.append(Self.float(record["max"]))
        }
    }

    /// A number as the column keeps it: -0 as 0, as jsonb's numeric (which has no -0) stored it.
    static func float(_ node: JSONNode?) -> Double? {
        node?.number.map { $0 + 0 }
    }

    static func integer(_ node: JSONNode?) -> Int64? {
        node?.number.flatMap { Int64(exactly: $0) }
    }

    mutating func reserve(_ count: Int) {
        keys.reserveCapacity(count); uuids.reserveCapacity(count); kinds.reserveCapacity(count); names.reserveCapacity(count)
        values.reserveCapacity(count); starts.reserveCapacity(count); ends.reserveCapacity(count); dates.reserveCapacity(count)
        sourceNames.reserveCapacity(count); sourceKinds.reserveCapacity(count); bundles.reserveCapacity(count); series.reserveCapacity(count)
        energies.reserveCapacity(count); distances.reserveCapacity(count); heartRates.reserveCapacity(count)
        lows.reserveCapacity(count); highs.reserveCapacity(count)
    }
}
