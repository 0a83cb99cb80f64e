import Foundation

/// A sum of transactions of one currency and kind: per category (nil = uncategorized) and, for
/// series, per month. What the read model adds up (exactly, as `numeric`); what the reports are
/// built from. A sum may pass `Int64.max`: it has 128 bits, like `Money`.
public struct FlowTotal: Sendable, Equatable {
    public var currency: Currency
    public var kind: MoneyFlow
    public var categoryId: UUID?
    public var month: LocalMonth?
    public var minorUnits: Int128

    public init(currency: Currency, kind: MoneyFlow, categoryId: UUID?, month: LocalMonth? = nil, minorUnits: Int128) {
        self.currency = currency
        self.kind = kind
        self.categoryId = categoryId
        self.month = month
        self.minorUnits = minorUnits
    }
}

/// What a report says about a category besides its totals.
public struct CategoryLabel: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var emoji: String?
    public var kind: MoneyFlow
    public init(id: UUID, name: String, emoji: String?, kind: MoneyFlow) {
        self.id = id
        self.name = name
        self.emoji = emoji
        self.kind = kind
    }
}

/// A category's total and its share of its kind's total ("37.5").
public struct CategoryShare: Sendable, Equatable {
    public var category: CategoryLabel
    public var total: Money
    public var share: String?
}

/// `GET /finance/summary`: per currency, never a mixed total (there is no exchange rate).
public struct FinanceSummary: Sendable, Equatable {
    public struct BudgetUse: Sendable, Equatable {
        public var categoryId: UUID
        public var amount: Money
        public var spent: Money
        public var remaining: Money
        public var usedPercent: String?
        public var status: BudgetRules.Status
    }

    public struct PerCurrency: Sendable, Equatable {
        public var currency: Currency
        public var income: Money
        public var expense: Money
        public var net: Money
        public var byCategory: [CategoryShare]
        public var uncategorizedIncome: Money
        public var uncategorizedExpense: Money
        public var budgets: [BudgetUse]
    }

    public var from: LocalDate
    public var to: LocalDate
    public var currencies: [PerCurrency]

    /// `budgets`: each expense category's budget for the period (the sum of the budgets of the
    /// months it touches), listed under its currency. A currency is listed when it has
    /// transactions in the period.
    public static func build(from: LocalDate, to: LocalDate, totals: [FlowTotal], labels: [UUID: CategoryLabel],
                             budgets: [(categoryId: UUID, amount: Money)]) -> FinanceSummary {
        let currencies = Set(totals.map(\.currency)).sorted()
        return FinanceSummary(from: from, to: to, currencies: currencies.map { currency in
            let mine = totals.filter { $0.currency == currency }
            func sum(_ kind: MoneyFlow, category: UUID?? = nil) -> Int128 {
                mine.filter { $0.kind == kind && (category == nil || $0.categoryId == category ?? nil) }.map(\.minorUnits).exactSum
            }
            let income = sum(.income), expense = sum(.expense)
            let byCategory = Dictionary(grouping: mine.filter { $0.categoryId != nil }) { $0.categoryId ?? UUID() }
                .compactMap { id, rows -> CategoryShare? in
                    guard let label = labels[id] else { return nil }
                    let total = rows.map(\.minorUnits).exactSum
                    return CategoryShare(category: label, total: Money(minorUnits: total, currency: currency),
                                         share: Percent.of(total, label.kind == .income ? income : expense))
                }
                .sorted { ($0.category.kind.rawValue, -$0.total.minorUnits, $0.category.name) < ($1.category.kind.rawValue, -$1.total.minorUnits, $1.category.name) }
            let uses = budgets.filter { $0.amount.currency == currency }.map { budget in
                let spent = sum(.expense, category: .some(budget.categoryId))
                return BudgetUse(
                    categoryId: budget.categoryId, amount: budget.amount, spent: Money(minorUnits: spent, currency: currency),
                    remaining: Money(minorUnits: budget.amount.minorUnits - spent, currency: currency),
                    usedPercent: Percent.of(spent, budget.amount.minorUnits),
                    status: BudgetRules.status(spent: spent, budget: budget.amount.minorUnits))
            }
            return PerCurrency(
                currency: currency, income: Money(minorUnits: income, currency: currency), expense: Money(minorUnits: expense, currency: currency),
                net: Money(minorUnits: income - expense, currency: currency), byCategory: byCategory,
                uncategorizedIncome: Money(minorUnits: sum(.income, category: .some(nil)), currency: currency),
                uncategorizedExpense: Money(minorUnits: sum(.expense, category: .some(nil)), currency: currency), budgets: uses)
        })
    }
}

/// `GET /finance/analytics?months=N`: the last N months up to the logical today, per currency.
public struct FinanceAnalytics: Sendable, Equatable {
    public struct MonthFlow: Sendable, Equatable {
        public var month: LocalMonth
        public var income: Money
        public var expense: Money
        public var net: Money
    }

    public struct Change: Sendable, Equatable {
        public var expense: Money
        public var expensePercent: String?
        public var income: Money
        public var incomePercent: String?
    }

    public struct PerCurrency: Sendable, Equatable {
        public var currency: Currency
        public var months: [MonthFlow]
        public var topCategories: [CategoryShare]
        public var averageDailyExpense: Money
        public var change: Change
    }

    public var from: LocalDate
    public var to: LocalDate
    public var currencies: [PerCurrency]

    public static let topCategoryCount = 5

    /// The months of the window that ends with `today`'s month, first to last.
    public static func window(months: Int, today: LocalDate) -> [LocalMonth] {
        (0..<months).map { today.localMonth.adding(months: $0 - months + 1) }
    }

    /// `series`: totals per month (categories need not be told apart) for the window and the
    /// window before it (the previous period of the same length, which `change` compares with);
    /// `expenses`: expense totals per category over the window, for the top categories.
    public static func build(months count: Int, today: LocalDate, series totals: [FlowTotal], expenses: [FlowTotal],
                             labels: [UUID: CategoryLabel]) -> FinanceAnalytics {
        let window = window(months: count, today: today)
        let first = window.first ?? today.localMonth
        let inWindow = totals.filter { ($0.month ?? first) >= first }
        let before = totals.filter { ($0.month ?? first) < first }
        // Days elapsed: the current month counts only up to the logical today.
        let days = Int128(first.firstDay.days(until: today) + 1)
        let currencies = Set(totals.map(\.currency)).sorted()
        return FinanceAnalytics(from: first.firstDay, to: today, currencies: currencies.map { currency in
            func sum(_ rows: [FlowTotal], _ kind: MoneyFlow) -> Int128 {
                rows.filter { $0.currency == currency && $0.kind == kind }.map(\.minorUnits).exactSum
            }
            // One pass: a month's figures are looked up, not filtered out of every row again.
            var monthly: [LocalMonth: [MoneyFlow: Int128]] = [:]
            for row in inWindow where row.currency == currency { monthly[row.month ?? first, default: [:]][row.kind, default: 0] += row.minorUnits }
            let money = { (minor: Int128) in Money(minorUnits: minor, currency: currency) }
            let series = window.map { month in
                let income = monthly[month]?[.income] ?? 0, expense = monthly[month]?[.expense] ?? 0
                return MonthFlow(month: month, income: money(income), expense: money(expense), net: money(income - expense))
            }
            let expense = sum(inWindow, .expense), income = sum(inWindow, .income)
            let previousExpense = sum(before, .expense), previousIncome = sum(before, .income)
            let top = Dictionary(grouping: expenses.filter { $0.currency == currency && $0.kind == .expense && $0.categoryId != nil }) {
                $0.categoryId ?? UUID()
            }
            .compactMap { id, rows -> CategoryShare? in
                guard let label = labels[id] else { return nil }
                let total = rows.map(\.minorUnits).exactSum
                return CategoryShare(category: label, total: money(total), share: Percent.of(total, expense))
            }
            .sorted { (-$0.total.minorUnits, $0.category.name) < (-$1.total.minorUnits, $1.category.name) }
            return PerCurrency(
                currency: currency, months: series, topCategories: Array(top.prefix(topCategoryCount)),
                averageDailyExpense: money(Rounding.halfEven(expense, dividedBy: max(days, 1))),
                change: Change(
                    expense: money(expense - previousExpense), expensePercent: Percent.of(expense - previousExpense, previousExpense),
                    income: money(income - previousIncome), incomePercent: Percent.of(income - previousIncome, previousIncome)))
        })
    }
}

public enum Rounding {
    /// `value / divisor` rounded half to even, for a positive divisor.
    public static func halfEven(_ value: Int128, dividedBy divisor: Int128) -> Int128 {
        let quotient = value / divisor, remainder = value % divisor
        let twice = remainder.magnitude * 2
        guard twice >= divisor.magnitude else { return quotient }
        let away: Int128 = value < 0 ? -1 : 1
        if twice > divisor.magnitude || quotient % 2 != 0 { return quotient + away }
        return quotient
    }
}
