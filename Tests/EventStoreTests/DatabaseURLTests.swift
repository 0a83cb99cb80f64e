import EventStore
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
