import Domain
import Foundation
import Testing

/// Random plans and deposits from a seeded generator (a failing seed repeats): what the
/// allocation and the statuses promise for any of them.
@Suite struct SavingsPropertyTests {
    static func randomSchedule(_ random: inout SplitMix) -> SavingsSchedule {
        var changes: [SavingsPlanChange] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            if !changes.isEmpty, Int.random(in: 0..<5, using: &random) == 0 {
                changes.append(.ended(after: LocalMonth(index: 2024 * 12 + Int.random(in: 0..<36, using: &random)).day(15)))
                continue
            }
            let start = LocalMonth(index: 2024 * 12 + Int.random(in: 0..<24, using: &random))
            let anchor: SavingsAnchorDay = Bool.random(using: &random) ? .last : .day(Int.random(in: 1...31, using: &random))
            let end = Bool.random(using: &random) ? start.adding(months: Int.random(in: 0..<30, using: &random)) : nil
            changes.append(.set(SavingsPlan(amount: Int64.random(in: 1...50_000, using: &random), anchorDay: anchor,
                                            everyMonths: Int.random(in: 1...3, using: &random), startMonth: start, endMonth: end)))
        }
        return SavingsSchedule(changes)
    }

    static func randomDeposits(_ schedule: SavingsSchedule, _ random: inout SplitMix) -> [SavingsAllocation.Deposit] {
        let dues = schedule.occurrences(from: LocalDate(daysSinceEpoch: 0), through: LocalMonth(index: 2027 * 12).lastDay)
        return (0..<Int.random(in: 0...40, using: &random)).map { n in
            let date = LocalMonth(index: 2023 * 12 + 6).firstDay.adding(days: Int.random(in: 0..<1300, using: &random))
            let naming = !dues.isEmpty && Int.random(in: 0..<4, using: &random) == 0 ? dues.randomElement(using: &random)?.dueDate : nil
            return .init(id: UUID(), amount: Int64.random(in: 1...80_000, using: &random), date: date, occurrence: naming, order: Int64(n))
        }
    }

    @Test(arguments: 0..<200)
    func paidPlusPlainIsTheDepositsAndNoOccurrenceIsOverpaid(_ seed: Int) {
        var random = SplitMix(seed: UInt64(seed))
        let schedule = Self.randomSchedule(&random)
        let deposits = Self.randomDeposits(schedule, &random)
        let allocation = SavingsAllocation(schedule: schedule, deposits: deposits)
        let amounts = Dictionary(Array(schedule.occurrences).map { ($0.dueDate, $0.amount) }, uniquingKeysWith: { first, _ in first })
        let paid: Int128 = allocation.paid.values.exactSum
        #expect(paid + allocation.plain == deposits.map(\.amount).exactSum, "seed \(seed)")
        for (due, paid) in allocation.paid {
            #expect(paid > 0 && paid <= amounts[due, default: 0], "seed \(seed): \(due) paid \(paid) of \(amounts[due, default: 0])")
        }
        for deposit in deposits {
            #expect((allocation.byDeposit[deposit.id]?.values.reduce(0, +) ?? 0) <= deposit.amount, "seed \(seed)")
        }
        // Due dates name occurrences: they never repeat.
        #expect(amounts.count == Array(schedule.occurrences).count, "seed \(seed)")
    }

    @Test(arguments: 0..<100)
    func theOverdueListNeverDependsOnTheWindowAskedFor(_ seed: Int) throws {
        var random = SplitMix(seed: UInt64(seed) &+ 10_000)
        let schedule = Self.randomSchedule(&random)
        let deposits = Self.randomDeposits(schedule, &random)
        let asOf = LocalMonth(index: 2024 * 12).firstDay.adding(days: Int.random(in: 0..<900, using: &random))
        var goal = SavingsGoal(id: UUID(), ownerId: UUID(), name: "G", emoji: nil, currency: try #require(Currency("EUR")),
                               targetAmount: nil, targetDate: nil, plan: schedule)
        goal.movements = deposits.map { .init(id: $0.id, kind: .deposit, amount: $0.amount, date: $0.date, occurrence: $0.occurrence, note: nil,
                                              actorId: UUID(), order: $0.order) }
        let progress = SavingsProgress(goal, asOf: asOf)
        // Whatever window a client asks for, an occurrence it shows has the status the overdue
        // list gives it, and the overdue list is every overdue occurrence of the whole plan.
        let everything = progress.occurrences(from: LocalDate(daysSinceEpoch: 0), through: LocalMonth(index: 2101 * 12).lastDay)
        #expect(everything.filter { $0.status == .overdue } == progress.overdues, "seed \(seed)")
        for _ in 0..<5 {
            let from = asOf.adding(days: Int.random(in: -800...200, using: &random))
            let to = from.adding(days: Int.random(in: 0...500, using: &random))
            let window = progress.occurrences(from: from, through: to)
            #expect(window == everything.filter { $0.dueDate >= from && $0.dueDate <= to }, "seed \(seed)")
            #expect(SavingsProgress(goal, asOf: asOf).overdues == progress.overdues)
        }
        // Deposits dated after the as-of date change nothing as of that date.
        var later = goal
        later.movements.append(.init(id: UUID(), kind: .deposit, amount: 99_999, date: asOf.adding(days: 1), occurrence: nil, note: nil,
                                     actorId: UUID(), order: 1_000))
        #expect(SavingsProgress(later, asOf: asOf).overdues == progress.overdues, "seed \(seed)")
    }
}
