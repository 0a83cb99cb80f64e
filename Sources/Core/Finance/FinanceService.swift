import Domain
import EventStore
import Foundation
import Logging
import Projections

/// Finance: categories with budgets, transactions, and the summary and analytics over them.
/// Commands load (the stream, folded), decide (`CategoryDecider`, `TransactionDecider`), append.
public struct FinanceService: AreaService {
    public typealias TransactionFilter = FinanceReadModel.TransactionFilter

    let basis: ServiceBasis
    let finance: FinanceReadModel

    public init(_ basis: ServiceBasis) {
        self.basis = basis
        finance = FinanceReadModel(client: basis.client, logger: basis.logger)
    }

    func settings(_ owner: UUID) async throws -> (calendar: UserCalendar, currency: Currency) {
        guard let settings = try await users.settings(owner) else { throw ResourceError.notFound }
        return (settings.calendar, settings.currency)
    }

    /// The logical today of the user.
    public func today(_ owner: UUID) async throws -> LocalDate {
        try await settings(owner).calendar.today(at: clock.now())
    }

    // MARK: Categories and budgets

    func books(_ owner: UUID) -> StreamName {
        StreamName(id: CategoryEvent.streamId(owner), ownerId: owner, type: CategoryEvent.streamType)
    }

    /// Every category change appends to the user's one category stream at the version it was
    /// decided on: two requests creating the same name at once cannot both win. If-Match
    /// compares with the category's own version.
    func execute(_ context: CommandContext, category categoryId: UUID?, _ command: CategoryCommand) async throws {
        let time = try await settings(context.userId).calendar.decisionTime(at: clock.now())
        let stream = books(context.userId)
        try await commands.run(CategoryDecider.self, stream: stream, command: command, context: context, time: time) {
            var loaded = try await commands.folded(CategoryDecider.self, stream)
            if let categoryId {
                guard let category = loaded.state.categories[categoryId] else { throw ResourceError.notFound }
                loaded.resourceVersion = category.revision
            }
            return loaded
        }
    }

    public func createCategory(_ context: CommandContext, _ new: NewCategory) async throws -> CategoryView {
        let id = context.newId("category")
        try await execute(context, category: nil, .create(id: id, new))
        return try await category(context.userId, id)
    }

    public func changeCategory(_ context: CommandContext, _ id: UUID, _ change: Checked<CategoryChange>) async throws -> CategoryView {
        try await execute(context, category: id, .change(categoryId: id, change))
        return try await category(context.userId, id)
    }

    public func archiveCategory(_ context: CommandContext, _ id: UUID) async throws {
        try await execute(context, category: id, .archive(categoryId: id))
    }

    public func setBudget(_ context: CommandContext, _ id: UUID, _ step: Checked<BudgetStep>) async throws -> CategoryView {
        try await execute(context, category: id, .setBudget(categoryId: id, step))
        return try await category(context.userId, id)
    }

    public func endBudget(_ context: CommandContext, _ id: UUID, _ end: Checked<BudgetEnd>) async throws -> CategoryView {
        try await execute(context, category: id, .endBudget(categoryId: id, end))
        return try await category(context.userId, id)
    }

    public func category(_ owner: UUID, _ id: UUID) async throws -> CategoryView {
        guard let view = try await finance.categories(owner, id: id).first else { throw ResourceError.notFound }
        return view
    }

    public func categories(_ owner: UUID, includeArchived: Bool) async throws -> [CategoryView] {
        try await finance.categories(owner, includeArchived: includeArchived)
    }

    // MARK: Transactions

    func stream(_ owner: UUID, transaction id: UUID) -> StreamName {
        StreamName(id: TransactionEvent.streamId(id), ownerId: owner, type: TransactionEvent.streamType)
    }

    /// A transaction's decision state: its stream folded, and the categories the command and
    /// the transaction name (a kind to match, an archived one to refuse).
    func decisionState(_ stream: StreamName, _ command: TransactionCommand) async throws -> CommandPath.Loaded<TransactionState> {
        // The category the command names does not depend on the stream: both are read at once.
        async let named = categoryFacts(stream.ownerId, command.categoryNamed)
        var loaded = try await commands.folded(TransactionDecider.self, stream)
        if let (id, facts) = try await named { loaded.state.categories[id] = facts }
        if let current = loaded.state.transaction?.categoryId, loaded.state.categories[current] == nil,
           let (id, facts) = try await categoryFacts(stream.ownerId, current) {
            loaded.state.categories[id] = facts
        }
        return loaded
    }

    func categoryFacts(_ owner: UUID, _ id: UUID?) async throws -> (UUID, TransactionState.CategoryRef)? {
        guard let id, let view = try await finance.categories(owner, id: id).first else { return nil }
        return (id, .init(kind: view.kind, archived: view.archived))
    }

    @discardableResult
    func execute(_ context: CommandContext, transaction id: UUID, _ command: TransactionCommand, calendar: UserCalendar? = nil) async throws
        -> CommandPath.Outcome
    {
        let calendar = if let calendar { calendar } else { try await settings(context.userId).calendar }
        let time = calendar.decisionTime(at: clock.now())
        let stream = stream(context.userId, transaction: id)
        return try await commands.run(TransactionDecider.self, stream: stream, command: command, context: context, time: time) {
            try await decisionState(stream, command)
        }
    }

    public func record(_ context: CommandContext, _ new: Checked<NewTransaction>) async throws -> TransactionView {
        let id = context.newId("transaction")
        let (calendar, currency) = try await settings(context.userId)
        try await execute(context, transaction: id, .record(id: id, new, currency: currency), calendar: calendar)
        return try await transaction(context.userId, id)
    }

    public func change(_ context: CommandContext, _ id: UUID, _ change: Checked<TransactionChange>) async throws -> TransactionView {
        try await execute(context, transaction: id, .change(change))
        return try await transaction(context.userId, id)
    }

    public func delete(_ context: CommandContext, _ id: UUID) async throws {
        try await execute(context, transaction: id, .delete)
    }

    public func transaction(_ owner: UUID, _ id: UUID) async throws -> TransactionView {
        guard let view = try await finance.transactions(owner, .init(), id: id, after: nil, limit: 1).first else { throw ResourceError.notFound }
        return view
    }

    public func transactions(_ owner: UUID, _ filter: TransactionFilter, after: TransactionCursor?, limit: Int) async throws -> [TransactionView] {
        try await finance.transactions(owner, filter, after: after, limit: limit)
    }

    // MARK: Reports

    /// Income, expense, net, categories and budgets per currency for `from`…`to`. Whole months
    /// read the inline monthly totals; other periods add up their transactions.
    public func summary(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> FinanceSummary {
        let wholeMonth = from.day == 1 && to == from.localMonth.lastDay
        // Independent reads, sent together.
        async let categoriesRead = finance.categories(owner)
        let totals = wholeMonth
            ? try await finance.monthTotals(owner, from: from.localMonth, through: from.localMonth).map { total in
                var total = total
                total.month = nil
                return total
            }
            : try await finance.totals(owner, from: from, to: to)
        let categories = try await categoriesRead
        let months = (0...from.localMonth.months(until: to.localMonth)).map { from.localMonth.adding(months: $0) }
        // An archived category's budget is over: it no longer shows as unspent.
        let budgets = categories.filter { $0.kind == .expense && !$0.archived }.flatMap { category in
            BudgetRules.total(of: months.compactMap { category.budget(in: $0) }).map { (categoryId: category.id, amount: $0) }
        }
        return FinanceSummary.build(
            from: from, to: to, totals: totals, labels: Dictionary(uniqueKeysWithValues: categories.map { ($0.id, $0.label) }), budgets: budgets)
    }

    /// The last `months` months up to the logical today, and the same number before them.
    public func analytics(_ owner: UUID, months: Int) async throws -> FinanceAnalytics {
        let today = try await today(owner)
        let month = today.localMonth
        // The current month only up to the logical today: a transaction dated later this month
        // has not happened yet, and the daily average divides by the days elapsed. Earlier
        // months come from the monthly totals, added up in SQL.
        // That is the month's kept totals less what is dated after today (usually nothing): a
        // few rows, where adding up the month's transactions reads hundreds.
        // The reads below do not depend on each other: they are sent together, so the answer
        // waits for the slowest of them rather than for their sum.
        async let laterRead = today == month.lastDay ? [] : finance.totals(owner, from: today.adding(days: 1), to: month.lastDay)
        async let kept = finance.monthTotals(owner, from: month, through: month)
        async let earlierSeries = finance.monthSeries(owner, from: month.adding(months: -(2 * months - 1)), through: month.adding(months: -1))
        async let earlierExpenses = months == 1 ? [] : finance.expenseByCategory(owner, from: month.adding(months: 1 - months), through: month.adding(months: -1))
        async let categories = finance.categories(owner)
        struct Key: Hashable { var currency: Currency, kind: MoneyFlow, category: UUID? }
        var net: [Key: Int128] = [:]
        for total in try await kept {
            net[Key(currency: total.currency, kind: total.kind, category: total.categoryId), default: 0] += total.minorUnits
        }
        for total in try await laterRead { net[Key(currency: total.currency, kind: total.kind, category: total.categoryId), default: 0] -= total.minorUnits }
        // A category (or a currency) spent only after today this month is not in it yet.
        let current = net.filter { $0.value != 0 }.map {
            FlowTotal(currency: $0.key.currency, kind: $0.key.kind, categoryId: $0.key.category, month: month, minorUnits: $0.value)
        }
        let series = try await earlierSeries + current
        let expenses = try await earlierExpenses + current
        let labels = try await categories.map(\.label)
        return FinanceAnalytics.build(months: months, today: today, series: series, expenses: expenses,
                                      labels: Dictionary(uniqueKeysWithValues: labels.map { ($0.id, $0) }))
    }
}
