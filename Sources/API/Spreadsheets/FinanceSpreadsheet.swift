import Core
import Domain
import Foundation
import Hummingbird
import NIOCore
import Projections

/// `GET /finance/transactions.csv?from&to` (also `category_id`, `kind`): every transaction in the
/// range, newest first as the list is, with its category's name and the amount as the exact
/// decimal the API gives. Read a page at a time, so a decade of transactions costs no memory.
enum FinanceSpreadsheet {
    static let header = CSVText.line(["date", "kind", "amount", "currency", "category", "note", "id"].map { .value($0) })

    static func register(_ reports: RouterGroup<UserRequestContext>, finance: FinanceService) {
        reports.get("transactions.csv") { request, context in
            let filter = try FinanceArea.transactionFilter(request)
            let owner = context.userId
            let names = Dictionary(try await finance.categories(owner, includeArchived: true).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            let span = [filter.from, filter.to].compactMap { $0?.description }.joined(separator: "-")
            return CSVText.download(named: "transactions\(span.isEmpty ? "" : "-\(span)").csv") { writer in
                try await writer.write(ByteBuffer(string: header))
                var after: TransactionCursor?
                repeat {
                    let page = try await finance.transactions(owner, filter, after: after, limit: 1_000)
                    var text = ""
                    for t in page {
                        text += CSVText.line([.value(t.date.description), .value(t.kind.rawValue), .value(t.amount.description),
                                              .value(t.amount.currency.code), .text(t.categoryId.flatMap { names[$0] }), .text(t.note),
                                              .value(t.id.uuidString.lowercased())])
                    }
                    if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                    after = page.count == 1_000 ? page.last?.position : nil
                } while after != nil
            }
        }
    }
}
