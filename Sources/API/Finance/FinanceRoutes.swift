import Core
import Domain
import Foundation
import Hummingbird
import Projections

/// Finance: categories with monthly budgets, income and expense transactions, and the summary
/// and analytics over them (`/api/v1/finance/*`).
public struct FinanceArea: Area {
    public static let name = "Finance"
    public static let projectors: [any Projector] = [FinanceProjector()]
    public static let openAPIPart = "finance"
    let finance: FinanceService

    public init(_ context: AreaContext) {
        finance = context.services.finance
    }

    /// `?month=YYYY-MM`, or `?from&to` (at most ten years), or the current month. One bound
    /// alone ends or starts at its own month's edge, as the month default does.
    static func period(_ request: Request, today: LocalDate) throws -> (LocalDate, LocalDate) {
        if let raw = request.query("month") {
            guard let month = LocalMonth(raw) else { throw ValidationFailure("month", "must be a month as YYYY-MM") }
            return (month.firstDay, month.lastDay)
        }
        switch (try request.queryDate("from"), try request.queryDate("to")) {
        case (nil, nil): return (today.localMonth.firstDay, today.localMonth.lastDay)
        case (let from?, nil): return (from, from.localMonth.lastDay)
        case (nil, let to?): return (to.localMonth.firstDay, to)
        case (let from?, let to?):
            guard from <= to, from.days(until: to) <= 3_660 else { throw ValidationFailure("from", "must be on or before to, at most ten years earlier") }
            return (from, to)
        }
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        // Over 60 lines: the area's route table, one short closure per route.
        let finance = self.finance
        let categories = api.group("finance/categories", context: UserRequestContext.self)
        categories.post { request, context in
            let view = try await finance.createCategory(context.command(), try await request.input(NewCategory.self, context: context))
            return EditedResponse(status: .created, headers: [.eTag: ETag.header(view.version)],
                                  response: CategoryDTO(view, today: try await finance.today(context.userId)))
        }
        categories.get { request, context in
            let includeArchived = try request.queryFlag("include_archived")
            let today = try await finance.today(context.userId)
            return Items(items: try await finance.categories(context.userId, includeArchived: includeArchived).map { CategoryDTO($0, today: today) })
        }
        categories.get("{id}") { _, context in
            let view = try await finance.category(context.userId, try context.resourceId())
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: CategoryDTO(view, today: try await finance.today(context.userId)))
        }
        categories.patch("{id}") { request, context in
            let change = try await request.checked(CategoryChange.self, context: context)
            let view = try await finance.changeCategory(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), change)
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: CategoryDTO(view, today: try await finance.today(context.userId)))
        }
        categories.delete("{id}") { request, context in
            try await finance.archiveCategory(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId())
            return Response(status: .noContent)
        }
        categories.put("{id}/budget") { request, context in
            let step = try await request.checked(BudgetStep.self, context: context)
            let view = try await finance.setBudget(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), step)
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: CategoryDTO(view, today: try await finance.today(context.userId)))
        }
        categories.delete("{id}/budget") { request, context in
            let end = try Checked<BudgetEnd>(reading: BudgetEndDraft(fromMonth: request.query("from_month")))
            let view = try await finance.endBudget(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), end)
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: CategoryDTO(view, today: try await finance.today(context.userId)))
        }

        let transactions = api.group("finance/transactions", context: UserRequestContext.self)
        transactions.post { request, context in
            let view = try await finance.record(context.command(), try await request.checked(NewTransaction.self, context: context))
            return EditedResponse(status: .created, headers: [.eTag: ETag.header(view.version)], response: TransactionDTO(view))
        }
        transactions.get { request, context in
            let limit = try Cursor.limit(request)
            let after = try Cursor.decode(TransactionCursor.self, request.query("cursor"))
            let filter = try Self.transactionFilter(request)
            let views = try await finance.transactions(context.userId, filter, after: after, limit: limit + 1)
            let page = Array(views.prefix(limit))
            return Page(items: page.map(TransactionDTO.init), nextCursor: views.count > limit ? page.last.flatMap { Cursor.encode($0.position) } : nil)
        }
        transactions.get("{id}") { _, context in
            let view = try await finance.transaction(context.userId, try context.resourceId())
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: TransactionDTO(view))
        }
        transactions.patch("{id}") { request, context in
            let change = try await request.checked(TransactionChange.self, context: context)
            let view = try await finance.change(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), change)
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: TransactionDTO(view))
        }
        transactions.delete("{id}") { request, context in
            try await finance.delete(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId())
            return Response(status: .noContent)
        }

        let reports = api.group("finance", context: UserRequestContext.self)
        FinanceSpreadsheet.register(reports, finance: finance)
        reports.get("summary") { request, context in
            let (from, to) = try Self.period(request, today: try await finance.today(context.userId))
            return SummaryDTO(try await finance.summary(context.userId, from: from, to: to))
        }
        reports.get("analytics") { request, context in
            var months = 12
            if let raw = request.query("months") {
                guard let parsed = Int(raw), (1...36).contains(parsed) else { throw ValidationFailure("months", "must be a whole number from 1 to 36") }
                months = parsed
            }
            return AnalyticsDTO(try await finance.analytics(context.userId, months: months))
        }
    }

    static func transactionFilter(_ request: Request) throws -> FinanceService.TransactionFilter {
        var filter = FinanceService.TransactionFilter(from: try request.queryDate("from"), to: try request.queryDate("to"))
        if let raw = request.query("category_id") {
            guard let id = UUID(uuidString: raw) else { throw ValidationFailure("category_id", "must be a category id") }
            filter.categoryId = id
        }
        if let raw = request.query("kind") {
            guard let kind = MoneyFlow(rawValue: raw) else { throw ValidationFailure("kind", "must be income or expense") }
            filter.kind = kind
        }
        return filter
    }
}
