import Domain
import EventStore
import Foundation
import PostgresNIO
import Projections
import Testing
import TestSupport

/// The records projector inserts a batch decided all new without checking each key, in a
/// savepoint: should a key be there after all (a read model gone wrong), the batch is written
/// again as upserts and the append still succeeds with every row as the event says.
@Suite struct HealthRecordsProjectorTests {
    static func records(_ range: Range<Int>, value: Double) throws -> [HealthRecord] {
        let day = try #require(LocalDate("2024-03-01"))
        return range.map { minute in
            HealthRecord(uuid: "item-\(minute)", kind: .quantity, name: "steps", value: value, startSeconds: 1_709_251_200 + Int64(minute) * 60,
                         endSeconds: 1_709_251_260 + Int64(minute) * 60, date: day, source: HealthSource(name: "Watch", kind: .watch), series: .sample)
        }
    }

    static func rows(_ owner: UUID, _ client: PostgresClient) async throws -> [String] {
        let rows = try await client.query("SELECT uuid, value FROM rm_health_records WHERE owner_id = \(owner) ORDER BY start_s")
        return try await rows.decode((String?, Double).self).reduce(into: [String]()) { $0.append("\($1.0 ?? "-") \($1.1)") }
    }

    @Test func aBatchSaidToBeNewWhoseKeysAreThereIsWrittenAsUpserts() async throws {
        try await TestDatabase.with { database in
            try await PostgresClient.withRunning(database.ownerConfiguration(maximumConnections: 4), logger: ProjectionFixtures.logger) { client in
                let store = ProjectionFixtures.store(client)
                let owner = UUID()
                let stream = StreamName(id: HealthEvent.streamId(owner), ownerId: owner, type: HealthEvent.streamType)
                let first = HealthEvent.RecordsStored(deviceId: nil, records: try Self.records(0..<100, value: 1), allNew: true)
                try await store.append(to: stream, expected: .any, events: [NewEvent(type: HealthEvent.RecordsStored.type, data: first.encodedJSON())])
                #expect(try await Self.rows(owner, client) == (0..<100).map { "item-\($0) 1.0" })
                // Ten of the next batch's rows are there already, although it says all are new.
                try await client.query("""
                    INSERT INTO rm_health_records (owner_id, key, uuid, kind, name, value, start_s, end_s, local_date, source_name, source_kind, series)
                    SELECT owner_id, key || '|again', 'item-' || (100 + n), kind, name, 9, start_s + 6000, end_s + 6000, local_date, source_name,
                           source_kind, series
                    FROM (SELECT *, row_number() OVER (ORDER BY start_s) - 1 AS n FROM rm_health_records WHERE owner_id = \(owner)) r WHERE n < 10
                    """)
                let second = HealthEvent.RecordsStored(deviceId: nil, records: try Self.records(100..<200, value: 2), allNew: true)
                let clashing = second.records.prefix(10).map(\.key)
                try await client.query("""
                    UPDATE rm_health_records SET key = k.key FROM unnest(\(clashing)::text[], \((100..<110).map { "item-\($0)" })::text[]) AS k(key, uuid)
                    WHERE owner_id = \(owner) AND rm_health_records.uuid = k.uuid
                    """)
                try await store.append(to: stream, expected: .any, events: [NewEvent(type: HealthEvent.RecordsStored.type, data: second.encodedJSON())])
                #expect(try await Self.rows(owner, client) == (0..<100).map { "item-\($0) 1.0" } + (100..<200).map { "item-\($0) 2.0" })
            }
        }
    }
}
