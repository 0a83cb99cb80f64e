import Foundation

/// Every rule about a user's categories and budgets.
public enum CategoryDecider: Decider {
    public static let initial = CategoryBook()

    public static func decide(_ book: CategoryBook, _ command: CategoryCommand, _ now: DecisionTime) throws -> [CategoryEvent] {
        switch command {
        case .create(let id, let new):
            if book.categories[id] != nil { return [] }
            if book.activeNamed(new.name, kind: new.kind) != nil {
                throw ResourceError.conflict("An active \(new.kind.rawValue) category is already named \(new.name).")
            }
            guard book.activeCount < CategoryBook.maximumActive else {
                throw ResourceError.conflict("At most \(CategoryBook.maximumActive) categories can be active; archive one first.")
            }
            return [.created(.init(categoryId: id, name: new.name, emoji: new.emoji, kind: new.kind, color: new.color))]
        case .change(let id, let checked):
            let category = try book.category(id)
            if let kind = checked.input.kind, kind != category.kind {
                throw ValidationFailure("kind", "cannot be changed; its transactions were recorded as \(category.kind.rawValue)")
            }
            let change = try checked.get()
            let changed = CategoryEvent.Changed(
                categoryId: id, name: change.name ?? category.name, emoji: change.emoji.applied(to: category.emoji),
                color: change.color.applied(to: category.color))
            guard changed.name != category.name || changed.emoji != category.emoji || changed.color != category.color else { return [] }
            if !category.archived, book.activeNamed(changed.name, kind: category.kind, except: id) != nil {
                throw ResourceError.conflict("An active \(category.kind.rawValue) category is already named \(changed.name).")
            }
            return [.changed(changed)]
        case .archive(let id):
            return try book.category(id).archived ? [] : [.archived(.init(categoryId: id))]
        case .setBudget(let id, let checked):
            let category = try book.category(id)
            let step = try BudgetRules.step(checked, for: category)
            if let existing = category.budgets[step.from], existing == Money(minorUnits: step.minorUnits, currency: step.currency) { return [] }
            return [.budgetSet(.init(categoryId: id, fromMonth: step.from, amountMinor: step.minorUnits, currency: step.currency))]
        case .endBudget(let id, let checked):
            let category = try book.category(id)
            let month = try checked.get().fromMonth ?? now.today.localMonth
            // Nothing to end: no budget is in force then, and none is set for later.
            guard category.budget(in: month) != nil || category.budgets.keys.contains(where: { $0 > month }) else { return [] }
            return [.budgetSet(.init(categoryId: id, fromMonth: month, amountMinor: nil, currency: nil))]
        }
    }

    public static func evolve(_ book: CategoryBook, _ event: CategoryEvent) -> CategoryBook {
        var book = book
        func update(_ id: UUID, _ body: (inout CategoryBook.Category) -> Void) {
            guard var category = book.categories[id] else { return }
            body(&category)
            category.revision += 1
            book.categories[id] = category
        }
        switch event {
        case .created(let created):
            book.categories[created.categoryId] = .init(
                id: created.categoryId, name: created.name, emoji: created.emoji, kind: created.kind, color: created.color)
        case .changed(let changed):
            update(changed.categoryId) {
                $0.name = changed.name
                $0.emoji = changed.emoji
                $0.color = changed.color
            }
        case .archived(let archived):
            update(archived.categoryId) { $0.archived = true }
        case .budgetSet(let budget):
            update(budget.categoryId) {
                // Ending a budget ends it for good from that month: later steps go too.
                if budget.money == nil { $0.budgets = $0.budgets.filter { $0.key < budget.fromMonth } }
                $0.budgets[budget.fromMonth] = .some(budget.money)
            }
        }
        return book
    }
}

extension CategoryEvent.BudgetSet {
    public var money: Money? {
        guard let amountMinor, let currency else { return nil }
        return Money(minorUnits: amountMinor, currency: currency)
    }
}
