@testable import Domain
import Foundation
import Testing

/// The async health models read a batch's outline from the JSON its event writes: what they
/// read must be what was written, for stored and for deleted batches.
@Suite struct HealthBatchOutlineTests {
    let watch = HealthSource(name: "Watch \"Ultra\" é", kind: .watch)

    @Test func aStoredBatchOutlinesItsItemsWhatTheyReplacedAndItsIntake() throws {
        let day = try #require(LocalDate("2024-03-01"))
        let records = [
            HealthRecord(uuid: "u-1", kind: .quantity, name: "steps", value: 120, startSeconds: 1_709_251_200, endSeconds: 1_709_251_260,
                         date: day, source: watch, series: .sample),
            HealthRecord(uuid: nil, kind: .sleep, name: "deep", value: nil, startSeconds: 1_709_200_000, endSeconds: 1_709_203_600,
                         date: day.adding(days: -1), source: watch, series: .sample),
        ]
        let replaced = [HealthEvent.RecordsDeleted.Removed(key: "old", kind: .quantity, name: "steps", date: day.adding(days: -3))]
        let event = HealthEvent.RecordsStored(deviceId: UUID(), records: records, replaced: replaced,
                                              intake: .init(format: "native", received: 7, duplicates: 5), receivedAt: 1_709_300_000)
        let outline = try #require(HealthBatchOutline.read(event.encodedJSON()))
        #expect(outline.items == [
            .init(kind: "quantity", name: "steps", date: "2024-03-01", endSeconds: 1_709_251_260),
            .init(kind: "sleep", name: "deep", date: "2024-02-29", endSeconds: 1_709_203_600),
        ])
        #expect(outline.replaced == [.init(kind: "quantity", name: "steps", date: "2024-02-27", endSeconds: nil)])
        #expect(outline.format == "native" && outline.received == 7 && outline.duplicates == 5)
        #expect(outline.receivedAt == 1_709_300_000)
    }

    @Test func aDeletedBatchOutlinesWhatItRemoved() throws {
        let day = try #require(LocalDate("2024-03-01"))
        let event = HealthEvent.RecordsDeleted(records: [.init(key: "k", kind: .quantity, name: "heart_rate", date: day)],
                                               storedBefore: [.init(name: "heart_rate", date: day, count: 3)], receivedAt: 5, today: day)
        let outline = try #require(HealthBatchOutline.read(event.encodedJSON()))
        #expect(outline.items == [.init(kind: "quantity", name: "heart_rate", date: "2024-03-01", endSeconds: nil)])
        #expect(outline.replaced.isEmpty && outline.format == nil && outline.receivedAt == 5)
    }

    @Test func aPayloadThatIsNotABatchHasNoOutline() {
        for json in ["[]", "{\"records\":{}}", "{\"records\":[{\"kind\":\"quantity\",\"name\":\"steps\"}]}", "not json"] {
            #expect(HealthBatchOutline.read(json) == nil, "\(json)")
        }
    }

    /// The outline as the whole tree gives it (`JSONNode`): what the cursor's reading must equal.
    static func fromTree(_ json: String) -> HealthBatchOutline? {
        guard let object = JSONNode.parse(json)?.object else { return nil }
        func items(_ node: JSONNode?) -> [HealthBatchOutline.Item]? {
            guard let node, !node.isNull else { return [] }
            guard let list = node.array else { return nil }
            var items: [HealthBatchOutline.Item] = []
            for element in list {
                guard let item = element.object, let kind = item["kind"]?.string, let name = item["name"]?.string,
                      let date = item["date"]?.string else { return nil }
                items.append(.init(kind: kind, name: name, date: date, endSeconds: item["end_seconds"]?.number.flatMap { Int64(exactly: $0) }))
            }
            return items
        }
        var outline = HealthBatchOutline()
        guard let stored = items(object["records"]), let replaced = items(object["replaced"]) else { return nil }
        (outline.items, outline.replaced) = (stored, replaced)
        if let intake = object["intake"]?.object {
            outline.format = intake["format"]?.string
            outline.received = intake["received"]?.number.flatMap { Int64(exactly: $0) }
            outline.duplicates = intake["duplicates"]?.number.flatMap { Int64(exactly: $0) }
        }
        outline.receivedAt = object["received_at"]?.number.flatMap { Int64(exactly: $0) } ?? 0
        return outline
    }

    /// Random payloads of a batch's shape, with fields written twice, of the wrong type, null or
    /// missing, and some not JSON: the cursor's outline is the tree's, or both have none.
    @Test func theOutlineIsWhatTheWholeDocumentSays() {
        var random = SplitMix(seed: 12)
        func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
        func scalar() -> String { pick(["\"steps\"", "\"2024-03-01\"", "\"quantity\"", "12", "1.5", "1e3", "null", "true", "{}", "[]", "\"\\u00e9\""]) }
        func item() -> String {
            let fields = (0..<Int(random.next() % 7)).map { _ in "\"\(pick(["kind", "name", "date", "end_seconds", "value", "key"]))\":\(scalar())" }
            return random.next() % 12 == 0 ? scalar() : "{" + fields.joined(separator: ",") + "}"
        }
        func list() -> String {
            random.next() % 8 == 0 ? scalar() : "[" + (0..<Int(random.next() % 4)).map { _ in item() }.joined(separator: ",") + "]"
        }
        func member() -> String {
            switch random.next() % 5 {
            case 0: return "\"records\":\(list())"
            case 1: return "\"replaced\":\(list())"
            case 2: return "\"intake\":" + (random.next() % 4 == 0 ? scalar() : "{" + (0..<Int(random.next() % 4)).map { _ in
                "\"\(pick(["format", "received", "duplicates", "other"]))\":\(scalar())" }.joined(separator: ",") + "}")
            case 3: return "\"received_at\":\(scalar())"
            default: return "\"device_id\":\(scalar())"
            }
        }
        var outlined = 0
        for _ in 0..<4_000 {
            var json = "{" + (0..<Int(random.next() % 5)).map { _ in member() }.joined(separator: ",") + "}"
            if random.next() % 25 == 0 { json.removeLast() }
            let tree = Self.fromTree(json)
            #expect(HealthBatchOutline.read(json) == tree, "\(json)")
            outlined += tree == nil ? 0 : 1
        }
        #expect(outlined > 1_000)
    }
}
