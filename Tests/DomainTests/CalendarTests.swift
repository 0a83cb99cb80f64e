import Domain
import Foundation
import Testing

func date(_ text: String) -> LocalDate {
    guard let value = LocalDate(text) else { preconditionFailure("bad test date \(text)") }
    return value
}

func instant(_ text: String) -> Date {
    guard let value = ISO8601DateFormatter().date(from: text) else { preconditionFailure("bad test instant \(text)") }
    return value
}

func zone(_ name: String) -> TimeZone {
    guard let value = TimeZone(identifier: name) else { preconditionFailure("unknown zone \(name)") }
    return value
}

@Suite struct LocalDateTests {
    @Test func daysRoundTripAndWeekdaysAreISO() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            #expect(LocalDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
        #expect(date("1970-01-01").daysSinceEpoch == 0)
        #expect(date("2024-11-03").weekday == 7)
        #expect(date("2024-11-04").weekday == 1)
        #expect(date("2000-02-29").adding(days: 1) == date("2000-03-01"))
        #expect(LocalDate("2023-02-29") == nil)
        #expect(LocalDate("2024-2-01") == nil)
        #expect(date("2024-11-06").startOfWeek(weekStart: 1) == date("2024-11-04"))
        #expect(date("2024-11-06").startOfWeek(weekStart: 7) == date("2024-11-03"))
    }

    /// An account's decisions get the UTC date of their instant, before and after midnight UTC.
    @Test func theUTCDateOfAnInstant() {
        #expect(LocalDate.utc(of: instant("2026-11-25T23:59:59Z")) == date("2026-11-25"))
        #expect(LocalDate.utc(of: instant("2026-11-26T00:00:00Z")) == date("2026-11-26"))
        #expect(LocalDate.utc(of: instant("1969-12-31T23:00:00Z")) == date("1969-12-31"))
    }

    /// Only plain digits and years PostgreSQL can store: a year 0 reached the database as a 500.
    @Test func onlyPlainDatesAndTimesParse() {
        for text in ["0000-01-01", "+999-01-01", "2024-+1-01", "2024-01- 1", " 2024-01-01"] {
            #expect(LocalDate(text) == nil, "\(text)")
        }
        #expect(LocalDate("0001-01-01")?.year == 1)
        for text in [":10:30", "+1:30", "1:30", "24:00", "10:60", "10:30:00"] {
            #expect(LocalTime(text) == nil, "\(text)")
        }
        #expect(LocalTime("23:59")?.description == "23:59")
    }

    @Test func datesMonthsAndTimesPrintZeroPadded() {
        #expect(LocalDate(year: 1, month: 2, day: 3)?.description == "0001-02-03")
        #expect(LocalDate(year: 2026, month: 11, day: 23)?.description == "2026-11-23")
        #expect(LocalDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(LocalMonth(year: 987, month: 1)?.description == "0987-01")
        #expect(LocalTime(hour: 7, minute: 5).description == "07:05")
        #expect(LocalTime(hour: 23, minute: 59).description == "23:59")
    }

    @Test func monthsAreAnchoredAndClamped() {
        let jan31 = date("2024-01-31")
        #expect(jan31.addingMonths(1) == date("2024-02-29"))
        #expect(jan31.addingMonths(2, anchorDay: 31) == date("2024-03-31"))
        #expect(jan31.addingMonths(3, anchorDay: 31) == date("2024-04-30"))
        #expect(date("2023-01-31").addingMonths(1) == date("2023-02-28"))
        #expect(date("2024-12-15").addingMonths(1) == date("2025-01-15"))
    }
}

@Suite struct LogicalDayTests {
    @Test func aLogAtTwoWithDayStartFourCountsForTheDayBefore() {
        let belgrade = zone("Europe/Belgrade")
        #expect(LogicalDay.date(of: instant("2026-05-02T02:00:00+02:00"), in: belgrade, dayStartHour: 4) == date("2026-05-01"))
        #expect(LogicalDay.date(of: instant("2026-05-02T04:00:00+02:00"), in: belgrade, dayStartHour: 4) == date("2026-05-02"))
        #expect(LogicalDay.date(of: instant("2026-05-02T02:00:00+02:00"), in: belgrade, dayStartHour: 0) == date("2026-05-02"))
    }

    /// Samples every 15 minutes of real time: the 25-hour and 23-hour days of New York each
    /// form one run of one date, 100 and 92 samples long.
    @Test(arguments: [("2024-11-03", 100), ("2024-03-10", 92)])
    func dstDaysHaveExactlyOneBoundaryEachSide(day: String, quarterHours: Int) {
        let newYork = zone("America/New_York")
        let target = date(day)
        var start = instant("\(target.adding(days: -1))T12:00:00Z")
        var dates: [LocalDate] = []
        for _ in 0..<(4 * 72) {
            dates.append(LogicalDay.date(of: start, in: newYork, dayStartHour: 0))
            start = start.addingTimeInterval(15 * 60)
        }
        #expect(dates.filter { $0 == target }.count == quarterHours)
        let boundaries = zip(dates, dates.dropFirst()).filter { $0 != $1 }
        #expect(boundaries.count == 3)  // into D-1's next day (D), out of D, and into D+2: one per day
        #expect(boundaries.allSatisfy { $0.adding(days: 1) == $1 })
    }

    @Test func aDailyHabitKeepsItsStreakAcrossBothDSTDays() {
        let newYork = zone("America/New_York")
        for (from, to) in [("2024-11-01", "2024-11-05"), ("2024-03-08", "2024-03-12")] {
            var values: [LocalDate: Decimal] = [:]
            var day = date(from)
            while day <= date(to) {
                // Logged each evening at 21:00 local, turned into a date the way the server does.
                let local = "\(day)T21:00:00"
                let offset = newYork.secondsFromGMT(for: instant(local + "Z").addingTimeInterval(5 * 3600)) / 3600
                let logged = instant(local + String(format: "%+03d:00", offset))
                values[LogicalDay.date(of: logged, in: newYork, dayStartHour: 0), default: 0] += 1
                day = day.adding(days: 1)
            }
            #expect(values.count == 5)
            let facts = HabitFacts(start: date(from), schedule: .daily, values: values)
            #expect(HabitCalculator.state(facts, today: date(to)).currentStreak == 5)
        }
    }

    @Test func aTravellerFromUTCPlusTwoToUTCMinusSevenNeitherDoublesNorSkipsADay() {
        let athens = zone("Europe/Athens")       // UTC+2 in winter
        let phoenix = zone("America/Phoenix")    // UTC-7, no DST
        // Logged at 23:00 in Athens, then again that evening (20:00) after landing in Phoenix.
        let first = LogicalDay.date(of: instant("2026-01-14T23:00:00+02:00"), in: athens, dayStartHour: 0)
        let second = LogicalDay.date(of: instant("2026-01-14T20:00:00-07:00"), in: phoenix, dayStartHour: 0)
        #expect(first == date("2026-01-14"))
        #expect(second == date("2026-01-14"))
        // The next day, in Phoenix.
        let third = LogicalDay.date(of: instant("2026-01-15T20:00:00-07:00"), in: phoenix, dayStartHour: 0)
        #expect(third == date("2026-01-15"))
        var values: [LocalDate: Decimal] = [date("2026-01-12"): 1, date("2026-01-13"): 1]
        for logged in [first, second, third] { values[logged] = 1 }  // a boolean habit: twice on one date is once
        let facts = HabitFacts(start: date("2026-01-12"), schedule: .daily, values: values)
        let state = HabitCalculator.state(facts, today: third)
        #expect(state.currentStreak == 4)
        #expect(HabitCalculator.periods(facts, through: third).map(\.status) == Array(repeating: .satisfied, count: 4))
    }
}
