import Domain
import Foundation

// An import's finance commands, through `FinanceService`: the one place an import builds the
// finance drafts and reads them into the commands' typed inputs, as the routes do at their
// edge. A category is created once: an active one of the same name and kind the account already
// has is used instead.
extension ImportService {
    /// The account's category for the file's category `key` (`fileId`): the one it already had
    /// by that name, or the one the import creates.
    func categoryId(_ owner: UUID, key: String, fileId: UUID?, categories: CategoryMap) -> UUID {
        fileId.flatMap(categories.get) ?? id(owner, key, "category")
    }

    /// Creates the category unless the account has an active one of that name and kind (not
    /// one of this file's: `fileCategories`), which the file's id then maps to. `temporaryName`:
    /// the name to create it under while one of this file's to be archived holds its own.
    func categoryStep(_ owner: UUID, key: String, _ category: LifelogImportLine.CategoryLine, temporaryName: String?,
                      fileCategories: Set<UUID>, categories: CategoryMap) -> ImportStep {
        let finance = self.finance
        return ImportStep(key) { context in
            if temporaryName == nil, let existing = try await finance.existingCategory(owner, named: category.name, kind: category.kind,
                                                                                       except: fileCategories) {
                categories.set(category.id, existing)
                return false
            }
            let draft = CategoryDraft(name: temporaryName ?? category.name, emoji: category.emoji, kind: category.kind, color: category.color)
            _ = try await finance.createCategory(context, try NewCategory.validated(from: draft).get())
            return nil
        }
    }

    /// Gives a category created under a temporary name its own, once the one holding it is archived.
    func categoryRename(_ owner: UUID, key: String, to name: String) -> ImportStep {
        let finance = self.finance, categoryId = id(owner, key, "category")
        return ImportStep(key + "/name") { context in
            _ = try await finance.changeCategory(context, categoryId, try CategoryChange.checked(from: CategoryChange(name: name)).get())
            return nil
        }
    }

    func categoryArchive(_ owner: UUID, key: String, fileId: UUID, categories: CategoryMap) -> ImportStep {
        let finance = self.finance
        return ImportStep(key + "/archive") { context in
            try await finance.archiveCategory(context, categoryId(owner, key: key, fileId: fileId, categories: categories))
            return nil
        }
    }

    func budgetStep(_ owner: UUID, key: String, categoryKey: String, _ budget: LifelogImportLine.BudgetLine, categories: CategoryMap) -> ImportStep {
        let finance = self.finance
        return ImportStep(key) { context in
            let category = categoryId(owner, key: categoryKey, fileId: budget.categoryId, categories: categories)
            do {
                if let amount = budget.amount {
                    let draft = BudgetDraft(amount: amount, currency: budget.currency, fromMonth: budget.fromMonth.description)
                    _ = try await finance.setBudget(context, category, try BudgetStep.checked(from: draft).get())
                } else {
                    let draft = BudgetEndDraft(fromMonth: budget.fromMonth.description)
                    _ = try await finance.endBudget(context, category, try BudgetEnd.checked(from: draft).get())
                }
            } catch ResourceError.notFound {
                throw ImportRefusal("category_id: no category of this file has this id")
            }
            return nil
        }
    }

    func transactionStep(_ owner: UUID, key: String, _ line: LifelogImportLine.TransactionLine, categoryKey: String?,
                         categories: CategoryMap) -> ImportStep {
        let finance = self.finance
        return ImportStep(key) { context in
            let category = categoryKey.map { categoryId(owner, key: $0, fileId: line.categoryId, categories: categories) }
            let draft = TransactionDraft(kind: line.kind, amount: line.amount, currency: line.currency,
                                         categoryId: category, date: line.date.description, note: line.note)
            _ = try await finance.record(context, try NewTransaction.checked(from: draft).get())
            return nil
        }
    }

    /// A Firefly transaction: its category by name and kind (created before, `fireflyCategory`).
    func fireflyStep(_ owner: UUID, _ transaction: FireflyTransactions.Transaction, category: UUID?) -> ImportStep {
        let finance = self.finance
        return ImportStep("firefly:transaction:\(transaction.key)") { context in
            let draft = TransactionDraft(
                kind: transaction.kind, amount: transaction.amount.description, currency: transaction.amount.currency.code,
                categoryId: category, date: transaction.date.description, note: transaction.note)
            _ = try await finance.record(context, try NewTransaction.checked(from: draft).get())
            return nil
        }
    }

    /// The account's active category named `name` of `kind`, or a new one (nil in a dry run,
    /// where it is not created): Firefly's categories, created once.
    func fireflyCategory(_ owner: UUID, name: String, kind: MoneyFlow, dryRun: Bool) async throws -> (UUID?, created: Bool) {
        if let existing = try await finance.existingCategory(owner, named: name, kind: kind, except: []) { return (existing, false) }
        if dryRun { return (nil, true) }
        let context = context(owner, "firefly:category:\(kind.rawValue):\(name.lowercased())")
        return (try await finance.createCategory(context, try NewCategory.validated(from: CategoryDraft(name: name, kind: kind)).get()).id, true)
    }
}

extension FinanceService {
    /// An active category of the account named `name` (as the rule compares names: case aside)
    /// of `kind`, other than those in `except`.
    func existingCategory(_ owner: UUID, named name: String, kind: MoneyFlow, except: Set<UUID>) async throws -> UUID? {
        let wanted = name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return try await categories(owner, includeArchived: false)
            .first { $0.kind == kind && !except.contains($0.id) && $0.name.lowercased() == wanted }?.id
    }
}
