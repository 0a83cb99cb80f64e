import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model of finance: categories, budget steps, transactions and monthly totals.
public struct FinanceProjector: Projector {
    public let name = "finance"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_fin_categories", "rm_fin_budgets", "rm_fin_transactions", "rm_fin_month_totals"]
    public let eventTypes: [String]? = CategoryEvent.types + TransactionEvent.types

    public init() {}

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // Over 60 lines: one case per event type, each its own statements: the table reads best whole.
        for event in events {
            let owner = event.ownerId
            switch event.type {
            case CategoryEvent.Created.type:
                let c = try decode(CategoryEvent.Created.self, event)
                try await connection.run("""
                    INSERT INTO rm_fin_categories (owner_id, category_id, name, emoji, kind, color, archived, revision, created_at)
                    VALUES (\(owner), \(c.categoryId), \(c.name), \(c.emoji), \(c.kind.rawValue), \(c.color), false, 1, \(event.recordedAt))
                    """, logger: logger)
            case CategoryEvent.Changed.type:
                let c = try decode(CategoryEvent.Changed.self, event)
                try await connection.run("""
                    UPDATE rm_fin_categories SET name = \(c.name), emoji = \(c.emoji), color = \(c.color), revision = revision + 1
                    WHERE owner_id = \(owner) AND category_id = \(c.categoryId)
                    """, logger: logger)
            case CategoryEvent.Archived.type:
                let c = try decode(CategoryEvent.Archived.self, event)
                try await connection.run("""
                    UPDATE rm_fin_categories SET archived = true, revision = revision + 1
                    WHERE owner_id = \(owner) AND category_id = \(c.categoryId)
                    """, logger: logger)
            case CategoryEvent.BudgetSet.type:
                let b = try decode(CategoryEvent.BudgetSet.self, event)
                let month = b.fromMonth.firstDay.description
                if b.amountMinor == nil {
                    try await connection.run("""
                        DELETE FROM rm_fin_budgets WHERE owner_id = \(owner) AND category_id = \(b.categoryId) AND from_month > \(month)::date
                        """, logger: logger)
                }
                try await connection.run("""
                    INSERT INTO rm_fin_budgets (owner_id, category_id, from_month, amount, currency)
                    VALUES (\(owner), \(b.categoryId), \(month)::date, \(b.amountMinor), \(b.currency?.code))
                    ON CONFLICT (owner_id, category_id, from_month) DO UPDATE SET amount = excluded.amount, currency = excluded.currency
                    """, logger: logger)
                try await connection.run("""
                    UPDATE rm_fin_categories SET revision = revision + 1 WHERE owner_id = \(owner) AND category_id = \(b.categoryId)
                    """, logger: logger)
            case TransactionEvent.Recorded.type:
                let t = try decode(TransactionEvent.Recorded.self, event)
                try await connection.run("""
                    INSERT INTO rm_fin_transactions (owner_id, transaction_id, kind, amount, currency, category_id, date, note, version, created_at)
                    VALUES (\(owner), \(t.transactionId), \(t.kind.rawValue), \(t.amountMinor), \(t.currency.code), \(t.categoryId),
                            \(t.date.description)::date, \(t.note), \(event.streamVersion), \(event.recordedAt))
                    """, logger: logger)
                try await count(owner, t.transactionId, sign: 1, on: connection, logger: logger)
            case TransactionEvent.Changed.type:
                let t = try decode(TransactionEvent.Changed.self, event).transaction
                try await count(owner, t.transactionId, sign: -1, on: connection, logger: logger)
                try await connection.run("""
                    UPDATE rm_fin_transactions SET kind = \(t.kind.rawValue), amount = \(t.amountMinor), currency = \(t.currency.code),
                      category_id = \(t.categoryId), date = \(t.date.description)::date, note = \(t.note), version = \(event.streamVersion)
                    WHERE owner_id = \(owner) AND transaction_id = \(t.transactionId)
                    """, logger: logger)
                try await count(owner, t.transactionId, sign: 1, on: connection, logger: logger)
            case TransactionEvent.Deleted.type:
                let t = try decode(TransactionEvent.Deleted.self, event)
                try await count(owner, t.transactionId, sign: -1, on: connection, logger: logger)
                try await connection.run("""
                    DELETE FROM rm_fin_transactions WHERE owner_id = \(owner) AND transaction_id = \(t.transactionId)
                    """, logger: logger)
            default:
                continue
            }
        }
    }

    /// Adds the transaction's row, as stored now, to its month's totals (`sign` 1) or takes it
    /// out (-1). A total that no transaction makes up any more goes, so a rebuild, which never
    /// writes one, ends with the same rows.
    private func count(_ owner: UUID, _ transactionId: UUID, sign: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("""
            INSERT INTO rm_fin_month_totals AS m (owner_id, month, currency, kind, category_id, total, count)
            SELECT owner_id, date_trunc('month', date)::date, currency, kind,
                   COALESCE(category_id, '00000000-0000-0000-0000-000000000000'::uuid), \(sign) * amount, \(sign)
            FROM rm_fin_transactions WHERE owner_id = \(owner) AND transaction_id = \(transactionId)
            ON CONFLICT (owner_id, month, currency, kind, category_id)
              DO UPDATE SET total = m.total + excluded.total, count = m.count + excluded.count
            """, logger: logger)
        if sign < 0 {
            try await connection.run("""
                DELETE FROM rm_fin_month_totals m USING rm_fin_transactions t
                WHERE t.owner_id = \(owner) AND t.transaction_id = \(transactionId) AND m.owner_id = t.owner_id
                  AND m.month = date_trunc('month', t.date)::date AND m.currency = t.currency AND m.kind = t.kind
                  AND m.category_id = COALESCE(t.category_id, '00000000-0000-0000-0000-000000000000'::uuid) AND m.count = 0
                """, logger: logger)
        }
    }
}
