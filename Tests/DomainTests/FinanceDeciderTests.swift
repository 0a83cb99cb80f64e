import Domain
import Foundation
import Testing

/// Given events, when a command, then events or an error: finance rules without a database.
@Suite struct FinanceDeciderTests {
    let today = LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0)
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: today) }
    let eur = Currency("EUR")!

    func category(_ draft: CategoryDraft) throws -> NewCategory { try NewCategory.validated(from: draft).get() }

    func categories(_ commands: [CategoryCommand]) throws -> (CategoryBook, [CategoryEvent]) {
        var events: [CategoryEvent] = []
        for command in commands { events += try Given(CategoryDecider.self, events).when(command, at: now) }
        return (CategoryDecider.fold(events), events)
    }

    @Test func anActiveNameIsTakenPerKindUntilArchived() throws {
        let food = UUID(), salary = UUID()
        let (book, history) = try categories([.create(id: food, category(CategoryDraft(name: " Food ", kind: .expense)))])
        #expect(history == [.created(.init(categoryId: food, name: "Food", emoji: nil, kind: .expense, color: nil))])
        #expect(book.categories[food]?.name == "Food")
        let given = Given(CategoryDecider.self, history)
        try given.thenThrows(.create(id: UUID(), category(CategoryDraft(name: "FOOD", kind: .expense))), at: now, ResourceError.self)
        try given.then(.create(id: salary, category(CategoryDraft(name: "Food", kind: .income))), at: now,
                   [.created(.init(categoryId: salary, name: "Food", emoji: nil, kind: .income, color: nil))])
        let archived = given.and([.archived(.init(categoryId: food))])
        let again = UUID()
        try archived.then(.create(id: again, category(CategoryDraft(name: "Food", kind: .expense))), at: now,
                      [.created(.init(categoryId: again, name: "Food", emoji: nil, kind: .expense, color: nil))])
        archived.thenNothing(.archive(categoryId: food), at: now)
    }

    @Test func aCategoryKeepsItsKindAndAnUnchangedPatchStoresNothing() throws {
        let id = UUID()
        let given = Given(CategoryDecider.self, [.created(.init(categoryId: id, name: "Rent", emoji: nil, kind: .expense, color: nil))])
        try given.thenThrows(.change(categoryId: id, read(CategoryChange(kind: .income))), at: now, ValidationFailure.self)
        try given.thenNothing(.change(categoryId: id, read(CategoryChange(name: "Rent"))), at: now)
        try given.then(.change(categoryId: id, read(CategoryChange(name: "Home"))), at: now,
                   [.changed(.init(categoryId: id, name: "Home", emoji: nil, color: nil))])
        try given.thenThrows(.change(categoryId: UUID(), read(CategoryChange(name: "X"))), at: now, ResourceError.self)
    }

    @Test func budgetStepsApplyFromTheirMonthAndEndingRemovesLaterOnes() throws {
        let id = UUID()
        let (book, history) = try categories([
            .create(id: id, category(CategoryDraft(name: "Food", kind: .expense))),
            .setBudget(categoryId: id, read(BudgetDraft(amount: "200", currency: "EUR", fromMonth: "2026-01"))),
            .setBudget(categoryId: id, read(BudgetDraft(amount: "300", currency: "EUR", fromMonth: "2026-03"))),
        ])
        #expect(history.dropFirst() == [.budgetSet(.init(categoryId: id, fromMonth: LocalMonth("2026-01")!, amountMinor: 20_000, currency: eur)),
                                        .budgetSet(.init(categoryId: id, fromMonth: LocalMonth("2026-03")!, amountMinor: 30_000, currency: eur))])
        let food = try #require(book.categories[id])
        #expect(food.budget(in: LocalMonth("2025-12")!) == nil)
        #expect(food.budget(in: LocalMonth("2026-02")!) == Money(minorUnits: 20_000, currency: eur))
        #expect(food.budget(in: LocalMonth("2027-01")!) == Money(minorUnits: 30_000, currency: eur))
        let given = Given(CategoryDecider.self, history)
        try given.thenNothing(.setBudget(categoryId: id, read(BudgetDraft(amount: "300.00", currency: "EUR", fromMonth: "2026-03"))), at: now)
        let end = CategoryEvent.budgetSet(.init(categoryId: id, fromMonth: LocalMonth("2026-02")!, amountMinor: nil, currency: nil))
        try given.then(.endBudget(categoryId: id, read(BudgetEndDraft(fromMonth: "2026-02"))), at: now, [end])
        let ended = CategoryDecider.fold(history + [end])
        #expect(ended.categories[id]?.budget(in: LocalMonth("2026-04")!) == nil)
        #expect(ended.categories[id]?.budget(in: LocalMonth("2026-01")!) == Money(minorUnits: 20_000, currency: eur))
        try given.and([end]).thenNothing(.endBudget(categoryId: id, read(BudgetEndDraft(fromMonth: "2026-05"))), at: now)
        #expect(BudgetRules.status(spent: 15_000, budget: 20_000) == .under)
        #expect(BudgetRules.status(spent: 16_000, budget: 20_000) == .near)
        #expect(BudgetRules.status(spent: 20_000, budget: 20_000) == .near)
        #expect(BudgetRules.status(spent: 20_001, budget: 20_000) == .over)
    }

    @Test func aTransactionMatchesItsCategorysKindAndDefaultsToTheUsersCurrencyAndToday() throws {
        let food = UUID(), id = UUID()
        let categories: [UUID: TransactionState.CategoryRef] = [food: .init(kind: .expense, archived: false)]
        let recorded = TransactionEvent.Recorded(transactionId: id, kind: .expense, amountMinor: 450, currency: eur, categoryId: food,
                                                 date: today, note: nil)
        // The decider's state is the transaction's stream and the categories it names (given as facts).
        func given(_ events: [TransactionEvent]) -> (TransactionState, [TransactionEvent]) {
            (TransactionDecider.fold(events, from: TransactionState(categories: categories)), events)
        }
        let (empty, _) = given([])
        #expect(try TransactionDecider.decide(empty, .record(id: id, read(TransactionDraft(kind: .expense, amount: "4.5", categoryId: food)), currency: eur), now)
                == [.recorded(recorded)])
        #expect(recorded.amount.description == "4.50")
        #expect(throws: ValidationFailure.self) {
            try TransactionDecider.decide(empty, .record(id: id, read(TransactionDraft(kind: .income, amount: "1", categoryId: food)), currency: eur), now)
        }
        #expect(throws: ValidationFailure.self) {
            try TransactionDecider.decide(empty, .record(id: id, read(TransactionDraft(kind: .expense, amount: "1", categoryId: UUID())), currency: eur), now)
        }
        let (stored, _) = given([.recorded(recorded)])
        #expect(try TransactionDecider.decide(stored, .change(read(TransactionChangeDraft(amount: "4.50"))), now).isEmpty)
        // A new currency keeps the amount as written, which must suit its digits.
        #expect(throws: ValidationFailure.self) { try TransactionDecider.decide(stored, .change(read(TransactionChangeDraft(currency: "JPY"))), now) }
        #expect(try TransactionDecider.decide(stored, .delete, now) == [.deleted(.init(transactionId: id))])
        let (deleted, _) = given([.recorded(recorded), .deleted(.init(transactionId: id))])
        #expect(throws: ResourceError.self) { try TransactionDecider.decide(deleted, .delete, now) }
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
