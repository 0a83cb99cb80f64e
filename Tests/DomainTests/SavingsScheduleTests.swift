import Domain
import Foundation
import Testing

func dayOf(_ text: String) -> LocalDate { LocalDate(text) ?? LocalDate(daysSinceEpoch: 0) }
func monthOf(_ text: String) -> LocalMonth { LocalMonth(text) ?? LocalMonth(index: 0) }

/// Occurrences, paying and statuses of savings plans, without a database.
@Suite struct SavingsScheduleTests {
    static func plan(_ amount: Int64 = 10_000, _ anchor: SavingsAnchorDay = .day(31), every: Int = 1, from: String, to: String? = nil) -> SavingsPlan {
        SavingsPlan(amount: amount, anchorDay: anchor, everyMonths: every, startMonth: monthOf(from), endMonth: to.map(monthOf))
    }

    static func dues(_ schedule: SavingsSchedule, through last: String) -> [String] {
        schedule.occurrences(from: dayOf("2000-01-01"), through: dayOf(last)).map(\.dueDate.description)
    }

    @Test func anchor31IsClampedToEachMonthsEndNeverChained() {
        let schedule = SavingsSchedule([.set(Self.plan(from: "2025-01", to: "2025-04"))])
        #expect(Self.dues(schedule, through: "2030-01-01") == ["2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"])
        let leap = SavingsSchedule([.set(Self.plan(from: "2024-01", to: "2024-04"))])
        #expect(Self.dues(leap, through: "2030-01-01") == ["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"])
    }

    @Test func anchorLastAndEveryTwoMonths() {
        let last = SavingsSchedule([.set(Self.plan(10_000, .last, from: "2025-01", to: "2025-03"))])
        #expect(Self.dues(last, through: "2030-01-01") == ["2025-01-31", "2025-02-28", "2025-03-31"])
        let everyOther = SavingsSchedule([.set(Self.plan(10_000, .day(15), every: 2, from: "2025-01", to: "2025-08"))])
        #expect(Self.dues(everyOther, through: "2030-01-01") == ["2025-01-15", "2025-03-15", "2025-05-15", "2025-07-15"])
    }

    @Test func aPlanChangeInAprilKeepsJanuaryToMarchAsTheyWere() {
        let before = Self.plan(10_000, .day(31), from: "2025-01")
        let after = Self.plan(25_000, .day(10), from: "2025-04")
        let schedule = SavingsSchedule([.set(before), .set(after)])
        let dues = schedule.occurrences(from: dayOf("2025-01-01"), through: dayOf("2025-06-30"))
        #expect(dues.map(\.dueDate.description) == ["2025-01-31", "2025-02-28", "2025-03-31", "2025-04-10", "2025-05-10", "2025-06-10"])
        #expect(dues.map(\.amount) == [10_000, 10_000, 10_000, 25_000, 25_000, 25_000])
        // Ending the plan drops what falls after the end, keeps what came before.
        let ended = SavingsSchedule([.set(before), .set(after), .ended(after: dayOf("2025-05-20"))])
        #expect(Self.dues(ended, through: "2030-01-01").last == "2025-05-10")
        // A plan set again after an end starts anew from its month.
        let again = SavingsSchedule(ended.changes + [.set(Self.plan(5_000, .day(1), from: "2025-09", to: "2025-10"))])
        #expect(Self.dues(again, through: "2030-01-01").suffix(3) == ["2025-05-10", "2025-09-01", "2025-10-01"])
    }

    static func deposit(_ amount: Int64, _ date: String, naming: String? = nil, order: Int64) -> SavingsAllocation.Deposit {
        .init(id: UUID(), amount: amount, date: dayOf(date), occurrence: naming.map(dayOf), order: order)
    }

    static func statuses(_ schedule: SavingsSchedule, _ deposits: [SavingsAllocation.Deposit], asOf: String, through: String)
        -> [String: (SavingsOccurrence.Status, Int)]
    {
        let allocation = SavingsAllocation(schedule: schedule, deposits: deposits)
        var result: [String: (SavingsOccurrence.Status, Int)] = [:]
        for due in schedule.occurrences(from: dayOf("2000-01-01"), through: dayOf(through)) {
            let occurrence = SavingsOccurrence(goalId: UUID(), due: due, paid: allocation.paid(due.dueDate), asOf: dayOf(asOf))
            result[due.dueDate.description] = (occurrence.status, occurrence.daysOverdue)
        }
        return result
    }

    @Test func asOfMarchFirstFebruaryIsOverdueByOneDayAndMarchUpcoming() throws {
        let schedule = SavingsSchedule([.set(Self.plan(10_000, .day(31), from: "2025-01"))])
        let paidJanuary = [Self.deposit(10_000, "2025-01-31", order: 1)]
        let march1 = Self.statuses(schedule, paidJanuary, asOf: "2025-03-01", through: "2025-03-31")
        #expect(march1["2025-01-31"]?.0 == .paid)
        #expect(march1["2025-02-28"]?.0 == .overdue)
        #expect(march1["2025-02-28"]?.1 == 1)
        #expect(march1["2025-03-31"]?.0 == .upcoming)

        let goal = try Self.goal(schedule, deposits: [(10_000, "2025-01-31")])
        let april2 = SavingsProgress(goal, asOf: dayOf("2025-04-02"))
        #expect(april2.overdues.map(\.dueDate.description) == ["2025-02-28", "2025-03-31"])
        #expect(april2.overdues.map(\.daysOverdue) == [33, 2])
        #expect(april2.nextPayment?.dueDate.description == "2025-04-30")
        let onTheDay = SavingsProgress(goal, asOf: dayOf("2025-04-30"))
        #expect(onTheDay.nextPayment?.status == .dueToday)
    }

    @Test func aDepositBeforeTheDueDatePaysItAndTheNextDepositPaysTheFollowingOne() {
        let schedule = SavingsSchedule([.set(Self.plan(10_000, .day(25), from: "2025-03"))])
        let first = Self.deposit(10_000, "2025-03-20", order: 1)
        let march26 = Self.statuses(schedule, [first], asOf: "2025-03-26", through: "2025-04-30")
        #expect(march26["2025-03-25"]?.0 == .paid)
        let second = Self.deposit(10_000, "2025-03-22", order: 2)
        let allocation = SavingsAllocation(schedule: schedule, deposits: [first, second])
        #expect(allocation.byDeposit[second.id] == [dayOf("2025-04-25"): 10_000])
        #expect(allocation.plain == 0)
    }

    @Test func sixtyThenFortyPayAnOccurrenceAndDeletingTheSixtyUnpaysIt() {
        let schedule = SavingsSchedule([.set(Self.plan(10_000, .day(10), from: "2025-05", to: "2025-05"))])
        let sixty = Self.deposit(6_000, "2025-05-01", order: 1), forty = Self.deposit(4_000, "2025-05-02", order: 2)
        #expect(Self.statuses(schedule, [sixty, forty], asOf: "2025-05-03", through: "2025-05-31")["2025-05-10"]?.0 == .paid)
        let alone = SavingsAllocation(schedule: schedule, deposits: [sixty])
        #expect(alone.paid(dayOf("2025-05-10")) == 6_000)
        #expect(Self.statuses(schedule, [sixty], asOf: "2025-05-03", through: "2025-05-31")["2025-05-10"]?.0 == .partial)
        #expect(Self.statuses(schedule, [sixty], asOf: "2025-05-11", through: "2025-05-31")["2025-05-10"]?.0 == .overdue)
        #expect(Self.statuses(schedule, [forty], asOf: "2025-05-03", through: "2025-05-31")["2025-05-10"]?.0 == .partial)
        #expect(Self.statuses(schedule, [], asOf: "2025-05-03", through: "2025-05-31")["2025-05-10"]?.0 == .upcoming)
    }

    @Test func aDepositNamingAnOccurrencePaysThatOneThenTheFollowingOnesAndTheRestIsPlain() {
        let schedule = SavingsSchedule([.set(Self.plan(10_000, .day(1), from: "2025-01", to: "2025-04"))])
        let named = Self.deposit(15_000, "2025-01-15", naming: "2025-03-01", order: 1)
        let big = Self.deposit(100_000, "2025-01-16", order: 2)
        let allocation = SavingsAllocation(schedule: schedule, deposits: [named, big])
        #expect(allocation.byDeposit[named.id] == [dayOf("2025-03-01"): 10_000, dayOf("2025-04-01"): 5_000])
        #expect(allocation.byDeposit[big.id] == [dayOf("2025-01-01"): 10_000, dayOf("2025-02-01"): 10_000, dayOf("2025-04-01"): 5_000])
        #expect(allocation.plain == 100_000 - 25_000)
        // Back-dating a deposit recomputes: the later-dated one pays what is left.
        let early = Self.deposit(10_000, "2024-12-01", order: 3)
        let again = SavingsAllocation(schedule: schedule, deposits: [named, big, early])
        #expect(again.byDeposit[early.id] == [dayOf("2025-01-01"): 10_000])
        #expect(again.byDeposit[big.id]?[dayOf("2025-01-01")] == nil)
    }

    @Test func monthlyNeededDividesWhatIsLeftByTheMonthsLeftNotTheWholeSpan() throws {
        #expect(SavingsProgress.monthsLeft(from: dayOf("2025-03-15"), to: dayOf("2025-06-15")) == 3)
        #expect(SavingsProgress.monthsLeft(from: dayOf("2025-03-15"), to: dayOf("2025-06-30")) == 4)
        #expect(SavingsProgress.monthsLeft(from: dayOf("2025-03-15"), to: dayOf("2025-03-20")) == 1)
        #expect(SavingsProgress.monthsLeft(from: dayOf("2025-01-31"), to: dayOf("2025-02-28")) == 1)
        // 1000.00 left over 3 months: 333.34 rounded up, so three payments reach the target.
        #expect(SavingsProgress.monthlyNeeded(left: 100_000, today: dayOf("2025-03-15"), targetDate: dayOf("2025-06-15")) == 33_334)
        #expect(SavingsProgress.monthlyNeeded(left: 0, today: dayOf("2025-03-15"), targetDate: dayOf("2025-06-15")) == 0)
        #expect(SavingsProgress.monthlyNeeded(left: -5, today: dayOf("2025-03-15"), targetDate: dayOf("2025-06-15")) == 0)
        #expect(SavingsProgress.monthlyNeeded(left: 7_000, today: dayOf("2025-07-01"), targetDate: dayOf("2025-06-15")) == 7_000)

        var goal = try Self.goal(SavingsSchedule([]), deposits: [(20_000, "2024-01-10")])
        goal.targetAmount = 120_000
        goal.targetDate = dayOf("2025-12-31")
        let progress = SavingsProgress(goal, asOf: dayOf("2025-08-31"))
        // 1000.00 left, Aug 31 → Dec 31 is 4 months (never the goal's 24-month span).
        #expect(progress.monthlyNeeded == 25_000)
        #expect(progress.progressPercent == "16.7")
        #expect(!progress.targetPassed)
        #expect(SavingsProgress(goal, asOf: dayOf("2026-01-01")).targetPassed)
        // As of a date before the deposit, it is not counted.
        #expect(SavingsProgress(goal, asOf: dayOf("2024-01-09")).balance == 0)
    }

    static func goal(_ schedule: SavingsSchedule, deposits: [(Int64, String)]) throws -> SavingsGoal {
        let currency = try #require(Currency("EUR"))
        return SavingsGoal(
            id: UUID(), ownerId: UUID(), name: "Trip", emoji: nil, currency: currency, targetAmount: nil, targetDate: nil, plan: schedule,
            movements: deposits.enumerated().map { index, d in
                .init(id: UUID(), kind: .deposit, amount: d.0, date: dayOf(d.1), occurrence: nil, note: nil, actorId: UUID(), order: Int64(index + 2))
            })
    }
}
