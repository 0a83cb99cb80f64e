import Domain
import Foundation
import Logging
import EventStore
import PostgresNIO

public struct CategoryView: Sendable {
    public var id: UUID
    public var name: String
    public var emoji: String?
    public var kind: MoneyFlow
    public var color: String?
    public var archived: Bool
    /// Budget steps, oldest first; a nil amount ended the budget from that month.
    public var budgets: [(from: LocalMonth, amount: Money?)]
    public var version: Int64
    public var createdAt: Date

    public var label: CategoryLabel { CategoryLabel(id: id, name: name, emoji: emoji, kind: kind) }

    /// The budget in force in `month`.
    public func budget(in month: LocalMonth) -> Money? {
        budgets.last { $0.from <= month }?.amount ?? nil
    }
}

public struct TransactionView: Sendable {
    public var id: UUID
    public var kind: MoneyFlow
    public var amount: Money
    public var categoryId: UUID?
    public var date: LocalDate
    public var note: String?
    public var version: Int64
    public var createdAt: Date
    public var position: TransactionCursor
}

/// A place in the newest-first list: (date, creation µs, id), integers and a date, exact.
public struct TransactionCursor: Sendable, Codable, Equatable {
    public var date: String
    public var createdMicros: Int64
    public var id: UUID
}

/// The queries over what `FinanceProjector` writes; every query leads with `owner_id`.
public struct FinanceReadModel: Sendable {
    public struct TransactionFilter: Sendable {
        public var from: LocalDate?
        public var to: LocalDate?
        public var categoryId: UUID?
        public var kind: MoneyFlow?
        public init(from: LocalDate? = nil, to: LocalDate? = nil, categoryId: UUID? = nil, kind: MoneyFlow? = nil) {
            self.from = from
            self.to = to
            self.categoryId = categoryId
            self.kind = kind
        }
    }

    static let noCategory = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The user's categories (archived too when asked), by kind then name, with their budget steps.
    public func categories(_ owner: UUID, id: UUID? = nil, includeArchived: Bool = true) async throws -> [CategoryView] {
        var views: [CategoryView] = []
        // One statement, so a category's budgets are exactly those of the revision its ETag names
        // (two queries could pair a new revision with old budgets), and one round trip.
        for try await r in try await client.rows("""
            SELECT c.category_id, c.name, c.emoji, c.kind, c.color, c.archived, c.revision, c.created_at,
                   to_char(b.from_month, 'YYYY-MM'), b.amount, b.currency
            FROM rm_fin_categories c
            LEFT JOIN rm_fin_budgets b ON b.owner_id = c.owner_id AND b.category_id = c.category_id
            WHERE c.owner_id = \(owner) AND (\(id)::uuid IS NULL OR c.category_id = \(id)) AND (\(includeArchived) OR NOT c.archived)
            ORDER BY c.kind, lower(c.name), c.category_id, b.from_month
            """, logger: logger).decode((UUID, String, String?, String, String?, Bool, Int64, Date, String?, Int64?, String?).self) {
            if views.last?.id != r.0 {
                guard let kind = MoneyFlow(rawValue: r.3) else { throw CorruptData("category kind", r.3) }
                views.append(CategoryView(id: r.0, name: r.1, emoji: r.2, kind: kind, color: r.4, archived: r.5, budgets: [], version: r.6, createdAt: r.7))
            }
            guard let month = r.8 else { continue }  // no budget
            guard let from = LocalMonth(month) else { throw CorruptData("budget month", month) }
            var money: Money?
            if let amount = r.9 {
                guard let currency = r.10.flatMap(Currency.init) else { throw CorruptData("budget currency", r.10 ?? "") }
                money = Money(minorUnits: amount, currency: currency)
            }
            views[views.count - 1].budgets.append((from, money))
        }
        return views
    }

    public func transactions(_ owner: UUID, _ filter: TransactionFilter, id: UUID? = nil, after: TransactionCursor?, limit: Int) async throws -> [TransactionView] {
        let afterDate = after?.date ?? "9999-12-31", afterMicros = after?.createdMicros ?? Int64.max
        let afterId = after?.id ?? UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))
        var views: [TransactionView] = []
        for try await r in try await client.rows("""
            SELECT transaction_id, kind, amount, currency, category_id, date::text, note, version, created_at,
                   (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint
            FROM rm_fin_transactions
            WHERE owner_id = \(owner) AND (\(id)::uuid IS NULL OR transaction_id = \(id))
              AND (\(filter.from?.description)::date IS NULL OR date >= \(filter.from?.description)::date)
              AND (\(filter.to?.description)::date IS NULL OR date <= \(filter.to?.description)::date)
              AND (\(filter.categoryId)::uuid IS NULL OR category_id = \(filter.categoryId))
              AND (\(filter.kind?.rawValue)::text IS NULL OR kind = \(filter.kind?.rawValue))
              AND (date, (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint, transaction_id) < (\(afterDate)::date, \(afterMicros), \(afterId))
            ORDER BY rm_fin_transactions.date DESC, created_at DESC, transaction_id DESC
            LIMIT \(limit)
            """, logger: logger).decode((UUID, String, Int64, String, UUID?, String, String?, Int64, Date, Int64).self) {
            guard let kind = MoneyFlow(rawValue: r.1) else { throw CorruptData("transaction kind", r.1) }
            guard let currency = Currency(r.3) else { throw CorruptData("currency", r.3) }
            guard let date = LocalDate(r.5) else { throw CorruptData("transaction date", r.5) }
            views.append(TransactionView(
                id: r.0, kind: kind, amount: Money(minorUnits: r.2, currency: currency), categoryId: r.4, date: date, note: r.6,
                version: r.7, createdAt: r.8, position: TransactionCursor(date: r.5, createdMicros: r.9, id: r.0)))
        }
        return views
    }

    /// Totals per currency, kind and category of the transactions dated `from`…`to`.
    /// Every sum is PostgreSQL's `numeric` (exact at any size), sent as text: never cast to
    /// `bigint`, whose 9.2·10^18 a month of large amounts can pass.
    public func totals(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [FlowTotal] {
        try await flowTotals(client.rows("""
            SELECT currency, kind, category_id, NULL::text, sum(amount)::text FROM rm_fin_transactions
            WHERE owner_id = \(owner) AND date BETWEEN \(from.description)::date AND \(to.description)::date
            GROUP BY currency, kind, category_id
            """, logger: logger))
    }

    /// Totals per month, currency, kind and category for whole months, from the inline monthly
    /// totals: a few rows per month however many transactions there are.
    public func monthTotals(_ owner: UUID, from: LocalMonth, through last: LocalMonth) async throws -> [FlowTotal] {
        try await flowTotals(client.rows("""
            SELECT currency, kind, NULLIF(category_id, \(Self.noCategory)), to_char(month, 'YYYY-MM'), total::text FROM rm_fin_month_totals
            WHERE owner_id = \(owner) AND month BETWEEN \(from.firstDay.description)::date AND \(last.firstDay.description)::date
            """, logger: logger))
    }

    /// Per month, currency and kind (categories added up) for whole months: what a monthly
    /// series needs, a handful of rows per month.
    public func monthSeries(_ owner: UUID, from: LocalMonth, through last: LocalMonth) async throws -> [FlowTotal] {
        try await flowTotals(client.rows("""
            SELECT currency, kind, NULL::uuid, to_char(month, 'YYYY-MM'), sum(total)::text FROM rm_fin_month_totals
            WHERE owner_id = \(owner) AND month BETWEEN \(from.firstDay.description)::date AND \(last.firstDay.description)::date
            GROUP BY currency, kind, month
            """, logger: logger))
    }

    /// Expenses per currency and category over whole months (uncategorized left out).
    public func expenseByCategory(_ owner: UUID, from: LocalMonth, through last: LocalMonth) async throws -> [FlowTotal] {
        try await flowTotals(client.rows("""
            SELECT currency, kind, category_id, NULL::text, sum(total)::text FROM rm_fin_month_totals
            WHERE owner_id = \(owner) AND month BETWEEN \(from.firstDay.description)::date AND \(last.firstDay.description)::date
              AND kind = 'expense' AND category_id <> \(Self.noCategory)
            GROUP BY currency, kind, category_id
            """, logger: logger))
    }

    private func flowTotals(_ rows: QueryRows) async throws -> [FlowTotal] {
        var totals: [FlowTotal] = []
        for try await (code, rawKind, category, month, sum) in rows.decode((String, String, UUID?, String?, String).self) {
            guard let currency = Currency(code) else { throw CorruptData("currency", code) }
            // A sum of whole minor units has no fraction; 128 bits hold any sum a table can make (see `Money`).
            guard let total = Int128(sum) else { throw CorruptData("sum of amounts", sum) }
            guard let kind = MoneyFlow(rawValue: rawKind) else { throw CorruptData("transaction kind", rawKind) }
            var localMonth: LocalMonth?
            if let month {
                guard let parsed = LocalMonth(month) else { throw CorruptData("month", month) }
                localMonth = parsed
            }
            totals.append(FlowTotal(currency: currency, kind: kind, categoryId: category, month: localMonth, minorUnits: total))
        }
        return totals
    }
}
