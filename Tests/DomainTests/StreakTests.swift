import Domain
import Foundation
import Testing

@Suite struct StreakTests {
    let day1 = date("2026-03-02")  // a Monday

    func logged(_ days: [Int], from start: LocalDate) -> [LocalDate: Decimal] {
        Dictionary(uniqueKeysWithValues: days.map { (start.adding(days: $0 - 1), Decimal(1)) })
    }

    @Test func aPendingDayDoesNotBreakTheStreakAndAMissedOneDoes() {
        let facts = HabitFacts(start: day1, schedule: .daily, values: logged([1, 2, 3, 4, 5], from: day1))
        let duringDay6 = HabitCalculator.state(facts, today: day1.adding(days: 5))
        #expect(duringDay6.currentStreak == 5)
        #expect(duringDay6.dueToday)
        #expect(!duringDay6.completedToday)
        #expect(HabitCalculator.state(facts, today: day1.adding(days: 6)).currentStreak == 0)
        var frozen = facts
        frozen.freezes = [day1.adding(days: 5)...day1.adding(days: 5)]
        let day7 = HabitCalculator.state(frozen, today: day1.adding(days: 6))
        #expect(day7.currentStreak == 5)
        #expect(day7.bestStreak == 5)
    }

    @Test func weekdaysCountOnlyScheduledDays() {
        var values: [LocalDate: Decimal] = [:]
        for week in 0..<3 { for offset in [0, 2, 4] { values[day1.adding(days: week * 7 + offset)] = 1 } }
        let facts = HabitFacts(start: day1, schedule: .weekdays([1, 3, 5]), values: values)
        let saturday = day1.adding(days: 19)
        let state = HabitCalculator.state(facts, today: saturday)
        #expect(state.currentStreak == 9)
        #expect(!state.dueToday)
        #expect(state.nextDueDate == day1.adding(days: 21))
        // An unscheduled day logged or not changes nothing.
        var extra = facts
        extra.values[day1.adding(days: 1)] = 1
        #expect(HabitCalculator.state(extra, today: saturday).currentStreak == 9)
    }

    @Test func timesPerWeekCountsWeeksAndTheCurrentWeekIsPending() {
        // Weeks start Monday; 3 logs in each of two weeks, 1 so far in the third.
        let values = logged([1, 3, 5, 8, 9, 10, 15], from: day1)
        let facts = HabitFacts(start: day1, schedule: .timesPerWeek(3), values: values)
        let wednesday = day1.adding(days: 16)
        let state = HabitCalculator.state(facts, today: wednesday)
        #expect(state.currentStreak == 2)
        #expect(state.dueToday)
        #expect(state.periodProgress == .init(done: 1, target: 3, start: day1.adding(days: 14), end: day1.adding(days: 20)))
        #expect(HabitCalculator.periods(facts, through: wednesday).last?.status == .pending)
    }

    @Test func monthlyOnThe31stFallsOnTheLastDayOfShortMonths() {
        let start = date("2024-01-01")
        let facts = HabitFacts(start: start, schedule: .monthly(.day(31)))
        #expect(HabitCalculator.state(facts, today: date("2024-02-10")).nextDueDate == date("2024-02-29"))
        let nonLeap = HabitFacts(start: date("2023-01-01"), schedule: .monthly(.day(31)))
        #expect(HabitCalculator.state(nonLeap, today: date("2023-02-10")).nextDueDate == date("2023-02-28"))
        let last = HabitFacts(start: start, schedule: .monthly(.last))
        #expect(HabitCalculator.state(last, today: date("2024-04-02")).nextDueDate == date("2024-04-30"))
        #expect(!HabitCalculator.state(facts, today: date("2024-02-28")).dueToday)
        #expect(HabitCalculator.state(facts, today: date("2024-02-29")).dueToday)
    }

    @Test func aNumericHabitIsCompletedOnlyWhenTheDaySumReachesTheTarget() {
        var facts = HabitFacts(start: day1, schedule: .daily, target: 8, values: [day1: 5])
        #expect(!HabitCalculator.state(facts, today: day1).completedToday)
        #expect(HabitCalculator.state(facts, today: day1).todayValue == 5)
        facts.values[day1] = 8
        #expect(HabitCalculator.state(facts, today: day1).completedToday)
        #expect(HabitCalculator.state(facts, today: day1).currentStreak == 1)
    }

    @Test func everyNDaysCountsFromTheStart() {
        let facts = HabitFacts(start: day1, schedule: .everyNDays(3), values: logged([1, 4, 7], from: day1))
        let state = HabitCalculator.state(facts, today: day1.adding(days: 7))
        #expect(state.currentStreak == 3)
        #expect(state.nextDueDate == day1.adding(days: 9))
    }

    @Test func aScheduleChangeJudgesThePastByTheOldSchedule() {
        var facts = HabitFacts(start: day1, schedule: .daily, values: logged([1, 2, 3, 4, 5, 6, 7, 8, 10, 12], from: day1))
        // From day 8 on, only Mondays/Wednesdays/Fridays: day 9 (a Tuesday) is no longer a miss.
        facts.schedules.append(.init(from: day1.adding(days: 7), schedule: .weekdays([1, 3, 5])))
        let state = HabitCalculator.state(facts, today: day1.adding(days: 11))
        #expect(state.currentStreak == 10)
        #expect(state.bestStreak == 10)
    }

    /// From a weekly count to daily on a Wednesday: the week's period ends on Tuesday (it could
    /// not reach 3, so it is excused) and every day from Wednesday is judged daily.
    @Test func aMidWeekChangeFromAWeeklyCountEndsThatWeek() {
        var facts = HabitFacts(start: day1, schedule: .timesPerWeek(3), values: logged([1], from: day1))
        facts.schedules.append(.init(from: day1.adding(days: 2), schedule: .daily))
        let thursday = day1.adding(days: 3)
        let periods = HabitCalculator.periods(facts, through: thursday)
        #expect(periods.map(\.status) == [.excused, .missed, .pending])
        #expect(periods.first?.end == day1.adding(days: 1))
        let state = HabitCalculator.state(facts, today: thursday)
        #expect(state.dueToday)
        #expect(state.nextDueDate == thursday)
        #expect(state.periodProgress == nil)
    }

    /// From daily to twice a week on a Wednesday: Monday's and Tuesday's logs belong to the old
    /// schedule, so the new week part starts at 0 of 2 and today is still due.
    @Test func aMidWeekChangeToAWeeklyCountStartsItsCountAfresh() {
        var facts = HabitFacts(start: day1, schedule: .daily, values: logged([1, 2], from: day1))
        let wednesday = day1.adding(days: 2)
        facts.schedules.append(.init(from: wednesday, schedule: .timesPerWeek(2)))
        let state = HabitCalculator.state(facts, today: wednesday)
        #expect(state.dueToday)
        #expect(state.nextDueDate == wednesday)
        #expect(state.periodProgress == .init(done: 0, target: 2, start: wednesday, end: day1.adding(days: 6)))
        #expect(state.currentStreak == 2)
    }

    /// Random schedules, logs and freezes: the streak never exceeds the satisfied periods, a log
    /// never lowers the best streak, a freeze on a missed period never lowers the current streak.
    @Test(arguments: Array(1...40))
    func streakPropertiesHoldForRandomHistories(seed: Int) {
        var random = SplitMix(seed: UInt64(seed))
        let schedules: [HabitSchedule] = [.daily, .weekdays([1, 3, 5]), .weekdays([6, 7]), .timesPerWeek(3),
                                          .everyNDays(2), .everyNDays(5), .monthly(.day(31)), .monthly(.last)]
        let schedule = schedules[Int(random.next() % UInt64(schedules.count))]
        let start = date("2025-01-01").adding(days: Int(random.next() % 30))
        let today = start.adding(days: 60 + Int(random.next() % 120))
        var facts = HabitFacts(start: start, schedule: schedule)
        var day = start
        while day <= today {
            if random.next() % 10 < 7 { facts.values[day] = 1 }
            day = day.adding(days: 1)
        }
        if random.next() % 2 == 0 {
            let from = start.adding(days: Int(random.next() % 50))
            facts.freezes.append(from...from.adding(days: Int(random.next() % 6)))
        }
        let periods = HabitCalculator.periods(facts, through: today)
        let state = HabitCalculator.state(facts, today: today)
        let satisfied = periods.filter { $0.status == .satisfied }.count
        #expect(state.currentStreak <= satisfied)
        #expect(state.bestStreak <= satisfied)
        #expect(state.currentStreak <= state.bestStreak)

        let unlogged = (0...start.days(until: today)).map { start.adding(days: $0) }.filter { facts.values[$0] == nil }
        if let extra = unlogged.randomElement(using: &random) {
            var more = facts
            more.values[extra] = 1
            #expect(HabitCalculator.state(more, today: today).bestStreak >= state.bestStreak)
        }
        if let missed = periods.filter({ $0.status == .missed }).randomElement(using: &random) {
            var excused = facts
            excused.freezes.append(missed.start...missed.end)
            #expect(HabitCalculator.state(excused, today: today).currentStreak >= state.currentStreak)
        }
    }
}
