import Domain
import Foundation
import Testing

@Suite struct HabitDateWindowTests {
    @Test func tenCalendarYearsBackAndAYearAhead() throws {
        let today = try #require(LocalDate("2028-02-29"))
        let window = HabitDateWindow(today: today)
        #expect(window.earliest.description == "2018-01-01")
        #expect(window.latest.description == "2029-03-01")
        #expect(window.contains(today))
        #expect(window.check(try #require(LocalDate("2017-12-31")), field: "start_date")?.field == "start_date")
        #expect(window.check(try #require(LocalDate("2029-03-02")), field: "date")?.message.contains("2029-03-01") == true)
        #expect(window.check(window.latest, field: "date") == nil)
        // Reads only look forward: an old date is fine, one past the window's end is not.
        #expect(window.checkNotAfter(try #require(LocalDate("2001-01-01")), field: "date") == nil)
        #expect(window.checkNotAfter(window.latest.adding(days: 1), field: "date")?.field == "date")
    }
}
