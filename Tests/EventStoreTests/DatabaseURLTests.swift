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
    @Test func randomIdsAreVersion4AndDistinct() {
        let ids = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            let text = id.uuidString.lowercased()
            let characters = Array(text)
            #expect(characters[14] == "4", "\(text)")
            #expect("89ab".contains(characters[19]), "\(text)")
        }
    }
}
