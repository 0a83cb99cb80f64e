import Domain
import Foundation

extension ImportService {
    /// Imports Firefly III's transactions export (`FireflyTransactions`): withdrawals as
    /// expenses, deposits as incomes, each with its category (one of the account's by that name
    /// and kind, or created once), its date and its description as the note. Transfers and an
    /// account's own figures are skipped and counted. A row is known by its journal id: a later
    /// export of the same Firefly adds only what is new.
    public func firefly(into owner: UUID, csv: String, dryRun: Bool,
                        progress: (@Sendable (ImportReport) -> Void)? = nil) async throws -> ImportReport {
        let rows: [FireflyTransactions.Row]
        do { rows = try FireflyTransactions.rows(csv) } catch { throw ImportFileError(error.reason) }
        var report = ImportReport(dryRun: dryRun)
        // Each category once, before the transactions that name it.
        var categories: [String: Result<UUID?, ImportRefusal>] = [:]
        var created: [String] = []
        for case .transaction(let transaction) in rows {
            guard let name = transaction.category else { continue }
            let key = "\(transaction.kind.rawValue):\(name.lowercased())"
            guard categories[key] == nil else { continue }
            do {
                let (id, isNew) = try await fireflyCategory(owner, name: name, kind: transaction.kind, dryRun: dryRun)
                categories[key] = .success(id)
                if isNew { created.append("\(name) (\(transaction.kind.rawValue))") }
            } catch {
                guard let reason = Self.reason(error) else { throw error }
                categories[key] = .failure(ImportRefusal("category \(name): \(reason)"))
            }
        }
        if !created.isEmpty { report.note("categories \(dryRun ? "to create" : "created"): \(created.joined(separator: ", "))") }
        var items: [ImportItem] = []
        for row in rows {
            switch row {
            case .other(let place, let outcome):
                report.record(outcome, at: place)
            case .transaction(let transaction):
                var category: UUID?
                if let name = transaction.category {
                    switch categories["\(transaction.kind.rawValue):\(name.lowercased())"] {
                    case .failure(let refusal): report.record(.failed(refusal.reason), at: transaction.place); continue
                    case .success(let id): category = id
                    case nil: break
                    }
                }
                // One day's in the file's order (a day's transactions list as entered); days side by side.
                items.append(ImportItem(place: transaction.place, lane: "transactions-\(transaction.date)",
                                        steps: [fireflyStep(owner, transaction, category: category)]))
            }
        }
        try await run(owner, items, dryRun: dryRun, into: &report, progress: progress)
        report.sortFailures()
        return report
    }
}
