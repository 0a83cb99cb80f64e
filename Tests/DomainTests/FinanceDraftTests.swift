import Domain
import Foundation
import Testing

/// When a finance request is read, then typed input (the amount unscaled where the currency may
/// be the user's or the stored one) with what the draft got wrong; the decider says what needs
/// the state or today first, then both at once, as when it read the strings itself.
@Suite struct FinanceDraftTests {
    let today = LocalDate(year: 2026, month: 3, day: 10) ?? LocalDate(daysSinceEpoch: 0)
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: today) }
    let eur = Currency("EUR")!, jpy = Currency("JPY")!

    @Test func anAmountReadsAsAnUnscaledDecimalAndItsCurrencyDecidesItsDigits() throws {
        let amount = try DecimalAmount("0012.50")
        #expect(amount.description == "12.50")
        #expect(try amount.minorUnits(in: eur) == 1_250)
        #expect(throws: ValidationFailure("amount", "JPY has no minor unit: send whole numbers")) { try amount.minorUnits(in: jpy) }
        #expect(throws: ValidationFailure("amount", "must not be empty")) { try DecimalAmount("") }
        #expect(DecimalAmount(Money(minorUnits: 1_250, currency: eur)) == amount)
        #expect(DecimalAmount(Money(minorUnits: 1_500, currency: jpy)).description == "1500")
    }

    @Test func aTransactionReadsAsTypesWithEveryWrongField() {
        let food = UUID()
        Checking(NewTransaction.self, TransactionDraft(kind: .expense, amount: "4.5", currency: "JPY", categoryId: food, date: "2026-03-01"))
            .then(NewTransaction(kind: .expense, amount: try? DecimalAmount("4.5"), currency: jpy, categoryId: food,
                                 date: LocalDate(year: 2026, month: 3, day: 1)))
        Checking(NewTransaction.self, TransactionDraft(kind: .expense, amount: "1e3", date: "1899-12-31", note: "a\u{0}"))
            .then(NewTransaction(kind: .expense, amount: nil, note: "a\u{0}"),
                  errors: [FieldError("amount", "must be a decimal number as a string, such as \"12.50\", with no sign, exponent or separators"),
                           FieldError("date", "must be a date as YYYY-MM-DD, from 1900 to a year from today"),
                           FieldError("note", "must be at most 1000 characters, without NUL")])
        // A currency that is no ISO code says nothing of the amount's digits: the amount is not read.
        Checking(NewTransaction.self, TransactionDraft(kind: .income, amount: "1e3", currency: "eur"))
            .then(NewTransaction(kind: .income, amount: nil), errors: [FieldError("currency", "must be an ISO 4217 code such as EUR")])
        Checking(NewTransaction.self, TransactionDraft(kind: nil, amount: nil, note: "a\u{0}"))
            .thenRefused([FieldError("kind", "is required: income or expense"), FieldError("amount", "is required")])
    }

    @Test func theDeciderNamesTheDraftsWrongFieldsWithItsOwnInOneAnswer() throws {
        // A bad note and a category the user does not have: both, in the draft's order.
        let draft = TransactionDraft(kind: .expense, amount: "4.505", categoryId: UUID(), date: "2027-06-01", note: "a\u{0}")
        Given(TransactionDecider.self).thenThrows(.record(id: UUID(), try read(draft), currency: eur), at: now, ValidationFailure([
            FieldError("amount", "EUR has at most 2 digits after the point"),
            FieldError("date", "must be a date as YYYY-MM-DD, from 1900 to a year from today"),
            FieldError("category_id", "names no category of yours"),
            FieldError("note", "must be at most 1000 characters, without NUL"),
        ]))
        // A change's amount that did not read is refused as sent, not replaced by the stored one
        // (whose "4.50" JPY would refuse too).
        let id = UUID()
        let stored = TransactionEvent.Recorded(transactionId: id, kind: .expense, amountMinor: 450, currency: eur, categoryId: nil, date: today, note: nil)
        Given(TransactionDecider.self, [.recorded(stored)]).thenThrows(
            .change(try read(TransactionChangeDraft(amount: "-1", currency: "JPY"))), at: now,
            ValidationFailure("amount", "must be a decimal number as a string, such as \"12.50\", with no sign, exponent or separators"))
        Given(TransactionDecider.self, [.recorded(stored)]).thenThrows(
            .change(try read(TransactionChangeDraft(currency: "JPY"))), at: now, ValidationFailure("amount", "JPY has no minor unit: send whole numbers"))
    }

    @Test func whatTheBookSaysComesBeforeTheDraftsErrors() throws {
        let food = UUID(), salary = UUID()
        let given = Given(CategoryDecider.self, [.created(.init(categoryId: food, name: "Food", emoji: nil, kind: .expense, color: nil)),
                                                 .created(.init(categoryId: salary, name: "Salary", emoji: nil, kind: .income, color: nil))])
        // A category that is not there is 404 whatever the body says; a kind that cannot change is said alone.
        given.thenThrows(.change(categoryId: UUID(), try read(CategoryChange(name: ""))), at: now, ResourceError.notFound)
        given.thenThrows(.change(categoryId: food, try read(CategoryChange(name: "", kind: .income))), at: now,
                         ValidationFailure("kind", "cannot be changed; its transactions were recorded as expense"))
        given.thenThrows(.change(categoryId: food, try read(CategoryChange(name: "", emoji: .set("a\u{0}")))), at: now,
                         ValidationFailure([FieldError("name", "must be 1 to 100 characters"), FieldError("emoji", "must not contain control characters")]))
        // A budget is for an expense category, said before anything of the month or the amount.
        let bad = BudgetDraft(amount: "1.005", currency: "EUR", fromMonth: "2026-13")
        given.thenThrows(.setBudget(categoryId: salary, try read(bad)), at: now, ValidationFailure("category", "budgets are for expense categories"))
        given.thenThrows(.setBudget(categoryId: food, try read(bad)), at: now, ValidationFailure([
            FieldError("from_month", "must be a month as YYYY-MM"), FieldError("amount", "EUR has at most 2 digits after the point")]))
        given.thenThrows(.endBudget(categoryId: UUID(), try read(BudgetEndDraft(fromMonth: "soon"))), at: now, ResourceError.notFound)
        given.thenThrows(.endBudget(categoryId: food, try read(BudgetEndDraft(fromMonth: "soon"))), at: now,
                         ValidationFailure("from_month", "must be a month as YYYY-MM"))
    }

    @Test func aNewCategoryReadsAsTypesOrNamesEveryWrongField() {
        Reading(NewCategory.self, CategoryDraft(name: " Food ", kind: .expense)).then(NewCategory(name: "Food", kind: .expense))
        Reading(NewCategory.self, CategoryDraft(name: nil, emoji: String(repeating: "x", count: 17), kind: nil))
            .thenErrors([FieldError("name", "is required"), FieldError("kind", "is required: income or expense"),
                         FieldError("emoji", "must be at most 16 characters")])
    }
}
