import EventStore
import Foundation
import Testing

@Suite struct DatabaseURLTests {
    /// Percent-encoding is undone once: a password that really contains "%41" keeps it.
    @Test func percentEncodedPartsAreDecodedOnce() throws {
        let url = try DatabaseURL(parsing: "postgres://life%40log:p%2541ss%3Aword@db.example:6543/life%20log?sslmode=require")
        #expect(url.username == "life@log")
        #expect(url.password == "p%41ss:word")
        #expect(url.database == "life log")
        #expect(url.port == 6543)
    }

    @Test func aURLThatIsNotPostgresIsRefusedWithAReason() {
        for bad in ["mysql://u@h/d", "postgres://h/d", "postgres://u@/d", "postgres://u@h/", "postgres://u@h/d?sslmode=always"] {
            #expect(throws: DatabaseURL.ParseError.self, "\(bad)") { try DatabaseURL(parsing: bad) }
        }
    }
}

@Suite struct LogPositionParsingTests {
    /// A checkpoint whose transaction id does not parse must fail loudly: read as 0, it would
    /// replay the whole log into an additive projector and count every event twice.
    @Test func aTransactionIdThatIsNotANumberIsAnErrorNotZero() throws {
        #expect(try LogPosition(transactionText: "123456789", globalPosition: 7) == LogPosition(transactionId: 123_456_789, globalPosition: 7))
        #expect(throws: UnreadableTransactionId.self) { try LogPosition(transactionText: "", globalPosition: 7) }
        #expect(throws: UnreadableTransactionId.self) { try LogPosition(transactionText: "12a", globalPosition: 7) }
        #expect(throws: UnreadableTransactionId.self) { try LogPosition(transactionText: "-1", globalPosition: 7) }
    }
}

@Suite struct RandomUUIDTests {
    /// Event ids come from `UUID.random()`: they must be real version-4 UUIDs, all different.
    /// They come from blocks of random bytes shared by every thread: ids made at once by many
    /// tasks, across many blocks, are all different too.
    @Test func randomIdsAreVersion4AndDistinct() async {
        let ids = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<8 { group.addTask { (0..<5_000).map { _ in UUID.random() } } }
            return await group.reduce(into: [UUID]()) { $0 += $1 }
        }
        #expect(ids.count == 40_000)
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let characters = Array(id.uuidString.lowercased())
            guard characters[14] == "4", "89ab".contains(characters[19]) else {
                Issue.record("not a version-4 UUID: \(id)")
                return
            }
        }
    }
}
