import Domain
import Foundation
import Testing

/// Given events, when a command, then events or an error: finance rules without a database.
@Suite struct FinanceDeciderTests {
    let today = LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0)
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: today) }
    let eur = Currency("EUR")!

    func categories(_ commands: [CategoryCommand]) throws -> (CategoryBook, [any DomainEvent]) {
        var events: [any DomainEvent] = []
        for command in commands { events += try CategoryDecider.decide(CategoryDecider.fold(events), command, now) }
        return (CategoryDecider.fold(events), events)
    }

    @Test func anActiveNameIsTakenPerKindUntilArchived() throws {
        let food = UUID()
        let (book, _) = try categories([.create(id: food, CategoryDraft(name: " Food ", kind: .expense))])
        #expect(book.categories[food]?.name == "Food")
        #expect(throws: ResourceError.self) { try CategoryDecider.decide(book, .create(id: UUID(), CategoryDraft(name: "FOOD", kind: .expense)), now) }
        #expect(try CategoryDecider.decide(book, .create(id: UUID(), CategoryDraft(name: "Food", kind: .income)), now).count == 1)
        let (archived, _) = try categories([.create(id: food, CategoryDraft(name: "Food", kind: .expense)), .archive(categoryId: food)])
        #expect(try CategoryDecider.decide(archived, .create(id: UUID(), CategoryDraft(name: "Food", kind: .expense)), now).count == 1)
        #expect(try CategoryDecider.decide(archived, .archive(categoryId: food), now).isEmpty)
    }

    @Test func aCategoryKeepsItsKindAndAnUnchangedPatchStoresNothing() throws {
        let id = UUID()
        let (book, _) = try categories([.create(id: id, CategoryDraft(name: "Rent", kind: .expense))])
        #expect(throws: ValidationFailure.self) { try CategoryDecider.decide(book, .change(categoryId: id, CategoryChange(kind: .income)), now) }
        #expect(try CategoryDecider.decide(book, .change(categoryId: id, CategoryChange(name: "Rent")), now).isEmpty)
        #expect(throws: ResourceError.self) { try CategoryDecider.decide(book, .change(categoryId: UUID(), CategoryChange(name: "X")), now) }
    }

    @Test func budgetStepsApplyFromTheirMonthAndEndingRemovesLaterOnes() throws {
        let id = UUID()
        let (book, _) = try categories([
            .create(id: id, CategoryDraft(name: "Food", kind: .expense)),
            .setBudget(categoryId: id, BudgetRequest(amount: "200", currency: "EUR", fromMonth: "2026-01")),
            .setBudget(categoryId: id, BudgetRequest(amount: "300", currency: "EUR", fromMonth: "2026-03")),
        ])
        let food = try #require(book.categories[id])
        #expect(food.budget(in: LocalMonth("2025-12")!) == nil)
        #expect(food.budget(in: LocalMonth("2026-02")!) == Money(minorUnits: 20_000, currency: eur))
        #expect(food.budget(in: LocalMonth("2027-01")!) == Money(minorUnits: 30_000, currency: eur))
        #expect(try CategoryDecider.decide(book, .setBudget(categoryId: id, BudgetRequest(amount: "300.00", currency: "EUR", fromMonth: "2026-03")), now).isEmpty)
        let ended = CategoryDecider.fold(try CategoryDecider.decide(book, .endBudget(categoryId: id, fromMonth: "2026-02"), now), from: book)
        #expect(ended.categories[id]?.budget(in: LocalMonth("2026-04")!) == nil)
        #expect(ended.categories[id]?.budget(in: LocalMonth("2026-01")!) == Money(minorUnits: 20_000, currency: eur))
        #expect(try CategoryDecider.decide(ended, .endBudget(categoryId: id, fromMonth: "2026-05"), now).isEmpty)
        #expect(BudgetRules.status(spent: 15_000, budget: 20_000) == .under)
        #expect(BudgetRules.status(spent: 16_000, budget: 20_000) == .near)
        #expect(BudgetRules.status(spent: 20_000, budget: 20_000) == .near)
        #expect(BudgetRules.status(spent: 20_001, budget: 20_000) == .over)
    }

    @Test func aTransactionMatchesItsCategorysKindAndDefaultsToTheUsersCurrencyAndToday() throws {
        let food = UUID(), id = UUID()
        let state = TransactionState(categories: [food: .init(kind: .expense, archived: false)])
        let recorded = try TransactionDecider.decide(state, .record(id: id, TransactionDraft(kind: .expense, amount: "4.5", categoryId: food), currency: eur), now)
        let event = try #require(recorded.first as? TransactionEvent.Recorded)
        #expect(event.amount.description == "4.50")
        #expect(event.date == today)
        #expect(throws: ValidationFailure.self) {
            try TransactionDecider.decide(state, .record(id: id, TransactionDraft(kind: .income, amount: "1", categoryId: food), currency: eur), now)
        }
        #expect(throws: ValidationFailure.self) {
            try TransactionDecider.decide(state, .record(id: id, TransactionDraft(kind: .expense, amount: "1", categoryId: UUID()), currency: eur), now)
        }
        var stored = TransactionDecider.fold(recorded, from: state)
        #expect(try TransactionDecider.decide(stored, .change(TransactionChange(amount: "4.50")), now).isEmpty)
        // A new currency keeps the amount as written, which must suit its digits.
        #expect(throws: ValidationFailure.self) { try TransactionDecider.decide(stored, .change(TransactionChange(currency: "JPY")), now) }
        stored = TransactionDecider.fold(try TransactionDecider.decide(stored, .delete, now), from: stored)
        #expect(throws: ResourceError.self) { try TransactionDecider.decide(stored, .delete, now) }
    }

    @Test func reportsNeverMixCurrenciesAndRoundHalfToEven() {
        let usd = Currency("USD")!, food = UUID()
        let labels = [food: CategoryLabel(id: food, name: "Food", emoji: nil, kind: .expense)]
        let summary = FinanceSummary.build(
            from: today, to: today,
            totals: [FlowTotal(currency: eur, kind: .expense, categoryId: food, minorUnits: 300),
                     FlowTotal(currency: eur, kind: .expense, categoryId: nil, minorUnits: 500),
                     FlowTotal(currency: usd, kind: .income, categoryId: nil, minorUnits: 100)],
            labels: labels, budgets: [])
        #expect(summary.currencies.map(\.currency) == [eur, usd])
        #expect(summary.currencies.first?.byCategory.first?.share == "37.5")
        #expect(summary.currencies.first?.expense.description == "8.00")
        #expect(summary.currencies.last?.net.description == "1.00")
        #expect(Rounding.halfEven(5, dividedBy: 2) == 2)
        #expect(Rounding.halfEven(7, dividedBy: 2) == 4)
        #expect(Rounding.halfEven(-7, dividedBy: 2) == -4)
    }

    /// Issue 24 item 11: totals past Int64.max minor units are the sums, not a clamp.
    @Test func reportsPastInt64AreExact() {
        let food = UUID(), rent = UUID(), max = Int128(Int64.max)
        let labels = [food: CategoryLabel(id: food, name: "Food", emoji: nil, kind: .expense),
                      rent: CategoryLabel(id: rent, name: "Rent", emoji: nil, kind: .expense)]
        let totals = [FlowTotal(currency: eur, kind: .expense, categoryId: food, minorUnits: max),
                      FlowTotal(currency: eur, kind: .expense, categoryId: rent, minorUnits: max),
                      FlowTotal(currency: eur, kind: .income, categoryId: nil, minorUnits: 2)]
        let summary = FinanceSummary.build(from: today, to: today, totals: totals, labels: labels,
                                           budgets: [(categoryId: food, amount: Money(minorUnits: max, currency: eur))])
        let euros = summary.currencies.first
        #expect(euros?.expense.description == "184467440737095516.14")
        #expect(euros?.net.description == "-184467440737095516.12")
        #expect(euros?.byCategory.map(\.share) == ["50.0", "50.0"])
        #expect(euros?.budgets.first?.status == .near && euros?.budgets.first?.usedPercent == "100.0")
        let march = today.localMonth
        let analytics = FinanceAnalytics.build(months: 1, today: today, series: totals.map { var t = $0; t.month = march; return t },
                                               expenses: totals.map { var t = $0; t.month = march; return t }, labels: labels)
        #expect(analytics.currencies.first?.months.first?.expense.description == "184467440737095516.14")
        #expect(analytics.currencies.first?.change.expense.description == "184467440737095516.14")
        #expect([Int64.max, Int64.max, 2].exactSum == max * 2 + 2)
        #expect(Rounding.halfEven(max * 2 + 1, dividedBy: 2) == max + 1)  // half, to even
    }
}
