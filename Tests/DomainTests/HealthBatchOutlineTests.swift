import Domain
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
}
