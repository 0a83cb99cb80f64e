import Core
import Domain
import Foundation
import Hummingbird
import Projections

extension TransactionCursor: CursorPosition {
    public var isPlausible: Bool { LocalDate(date) != nil && (0...4_102_444_800_000_000).contains(createdMicros) }
}

/// An amount with its currency, as every finance and savings answer prints it.
struct MoneyDTO: Encodable, Sendable, Equatable {
    var amount: String
    var currency: String
    init(_ money: Money) {
        amount = money.description
        currency = money.currency.code
    }
}

struct BudgetStepDTO: Encodable, Sendable {
    var fromMonth: String
    /// Null: the budget ended from this month.
    @NullWhenEmpty var amount: String? = nil
    @NullWhenEmpty var currency: String? = nil

    enum CodingKeys: String, CodingKey { case fromMonth, amount, currency }

}

struct CategoryDTO: ResponseEncodable {
    var id: String
    var name: String
    var emoji: String?
    var kind: String
    var color: String?
    var archived: Bool
    /// The budget in force in the logical today's month.
    var budget: MoneyDTO?
    var budgets: [BudgetStepDTO]
    var createdAt: Date
    var version: Int64

    init(_ view: CategoryView, today: LocalDate) {
        id = view.id.uuidString.lowercased()
        name = view.name
        emoji = view.emoji
        kind = view.kind.rawValue
        color = view.color
        archived = view.archived
        budget = view.budget(in: today.localMonth).map(MoneyDTO.init)
        budgets = view.budgets.map { BudgetStepDTO(fromMonth: $0.from.description, amount: $0.amount?.description, currency: $0.amount?.currency.code) }
        createdAt = view.createdAt
        version = view.version
    }
}

struct TransactionDTO: ResponseEncodable {
    var id: String
    var kind: String
    var amount: String
    var currency: String
    var categoryId: String?
    var date: String
    var note: String?
    var createdAt: Date
    var version: Int64

    init(_ view: TransactionView) {
        id = view.id.uuidString.lowercased()
        kind = view.kind.rawValue
        amount = view.amount.description
        currency = view.amount.currency.code
        categoryId = view.categoryId?.uuidString.lowercased()
        date = view.date.description
        note = view.note
        createdAt = view.createdAt
        version = view.version
    }
}

struct PeriodDTO: Encodable, Sendable {
    var from: String
    var to: String
}

struct CategoryShareDTO: Encodable, Sendable {
    var categoryId: String
    var name: String
    var emoji: String?
    var kind: String
    var total: String
    var share: String?

    init(_ share: CategoryShare) {
        categoryId = share.category.id.uuidString.lowercased()
        name = share.category.name
        emoji = share.category.emoji
        kind = share.category.kind.rawValue
        total = share.total.description
        self.share = share.share
    }
}

struct SummaryDTO: ResponseEncodable {
    struct Uncategorized: Encodable, Sendable {
        var income: String
        var expense: String
    }
    struct Budget: Encodable, Sendable {
        var categoryId: String
        var amount: String
        var spent: String
        var remaining: String
        var usedPercent: String?
        var status: String
        var colorToken: String
    }
    struct PerCurrency: Encodable, Sendable {
        var currency: String
        var income: String
        var expense: String
        var net: String
        var byCategory: [CategoryShareDTO]
        var uncategorized: Uncategorized
        var budgets: [Budget]
    }

    var period: PeriodDTO
    var currencies: [PerCurrency]

    init(_ summary: FinanceSummary) {
        period = PeriodDTO(from: summary.from.description, to: summary.to.description)
        currencies = summary.currencies.map { c in
            PerCurrency(
                currency: c.currency.code, income: c.income.description, expense: c.expense.description, net: c.net.description,
                byCategory: c.byCategory.map(CategoryShareDTO.init),
                uncategorized: Uncategorized(income: c.uncategorizedIncome.description, expense: c.uncategorizedExpense.description),
                budgets: c.budgets.map {
                    Budget(categoryId: $0.categoryId.uuidString.lowercased(), amount: $0.amount.description, spent: $0.spent.description,
                           remaining: $0.remaining.description, usedPercent: $0.usedPercent, status: $0.status.rawValue,
                           colorToken: $0.status.colorToken)
                })
        }
    }
}

struct AnalyticsDTO: ResponseEncodable {
    struct Month: Encodable, Sendable {
        var month: String
        var income: String
        var expense: String
        var net: String
    }
    /// A percent is null (not absent) when the earlier figure is zero.
    struct Change: Encodable, Sendable {
        var expense: String
        @NullWhenEmpty var expensePercent: String? = nil
        var income: String
        @NullWhenEmpty var incomePercent: String? = nil

        enum CodingKeys: String, CodingKey { case expense, expensePercent, income, incomePercent }

    }
    struct PerCurrency: Encodable, Sendable {
        var currency: String
        var months: [Month]
        var topCategories: [CategoryShareDTO]
        var averageDailyExpense: String
        var change: Change
    }

    var period: PeriodDTO
    var currencies: [PerCurrency]

    init(_ analytics: FinanceAnalytics) {
        period = PeriodDTO(from: analytics.from.description, to: analytics.to.description)
        currencies = analytics.currencies.map { c in
            PerCurrency(
                currency: c.currency.code,
                months: c.months.map { Month(month: $0.month.description, income: $0.income.description, expense: $0.expense.description, net: $0.net.description) },
                topCategories: c.topCategories.map(CategoryShareDTO.init), averageDailyExpense: c.averageDailyExpense.description,
                change: Change(expense: c.change.expense.description, expensePercent: c.change.expensePercent,
                               income: c.change.income.description, incomePercent: c.change.incomePercent))
        }
    }
}
