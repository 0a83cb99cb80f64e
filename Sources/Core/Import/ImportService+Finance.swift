import Domain
import Foundation

// An import's finance commands, through `FinanceService`: the one place an import builds the
// finance drafts (another branch moves these commands to typed inputs: this file is where an
// import meets that change). A category is created once: an active one of the same name and
// kind the account already has is used instead.
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
            _ = try await finance.createCategory(context, draft)
            return nil
        }
    }

    /// Gives a category created under a temporary name its own, once the one holding it is archived.
    func categoryRename(_ owner: UUID, key: String, to name: String) -> ImportStep {
        let finance = self.finance, categoryId = id(owner, key, "category")
        return ImportStep(key + "/name") { context in
            _ = try await finance.changeCategory(context, categoryId, CategoryChange(name: name))
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
                    _ = try await finance.setBudget(context, category, BudgetRequest(amount: amount, currency: budget.currency,
                                                                                    fromMonth: budget.fromMonth.description))
                } else {
                    _ = try await finance.endBudget(context, category, fromMonth: budget.fromMonth.description)
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
            _ = try await finance.record(context, TransactionDraft(kind: line.kind, amount: line.amount, currency: line.currency,
                                                                   categoryId: category, date: line.date.description, note: line.note))
            return nil
        }
    }

    /// A Firefly transaction: its category by name and kind (created before, `fireflyCategory`).
    func fireflyStep(_ owner: UUID, _ transaction: FireflyTransactions.Transaction, category: UUID?) -> ImportStep {
        let finance = self.finance
        return ImportStep("firefly:transaction:\(transaction.key)") { context in
            _ = try await finance.record(context, TransactionDraft(
                kind: transaction.kind, amount: transaction.amount.description, currency: transaction.amount.currency.code,
                categoryId: category, date: transaction.date.description, note: transaction.note))
            return nil
        }
    }

    /// The account's active category named `name` of `kind`, or a new one (nil in a dry run,
    /// where it is not created): Firefly's categories, created once.
    func fireflyCategory(_ owner: UUID, name: String, kind: MoneyFlow, dryRun: Bool) async throws -> (UUID?, created: Bool) {
        if let existing = try await finance.existingCategory(owner, named: name, kind: kind, except: []) { return (existing, false) }
        if dryRun { return (nil, true) }
        let context = context(owner, "firefly:category:\(kind.rawValue):\(name.lowercased())")
        return (try await finance.createCategory(context, CategoryDraft(name: name, kind: kind)).id, true)
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
