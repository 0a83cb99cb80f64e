import Foundation

/// Every rule about one transaction. The draft's own rules were read at the edge
/// (`NewTransaction.checked`); the decider adds what needs the user's currency, the stored
/// transaction, its categories or today, and refuses with both at once.
public enum TransactionDecider: Decider {
    public static let initial = TransactionState()

    public static func decide(_ state: TransactionState, _ command: TransactionCommand, _ now: DecisionTime) throws -> [TransactionEvent] {
        switch command {
        case .record(let id, let checked, let userCurrency):
            guard state.transaction == nil else { return [] }
            let new = checked.input
            let kind = new.kind ?? .expense  // the edge refuses a draft without one
            let currency = new.currency ?? userCurrency
            var errors: [FieldError] = []
            let minorUnits = scaled(new.amount, in: currency, into: &errors)
            errors += dateErrors(new.date, now: now) + categoryErrors(new.categoryId, kind: kind, previous: nil, state.categories)
            _ = try checked.get(adding: errors)
            guard let minorUnits else { throw ValidationFailure("amount", "is required") }
            return [.recorded(.init(transactionId: id, kind: kind, amountMinor: minorUnits, currency: currency, categoryId: new.categoryId,
                                    date: new.date ?? now.today, note: new.note))]
        case .change(let checked):
            guard let current = state.transaction else { throw ResourceError.notFound }
            let change = checked.input
            let kind = change.kind ?? current.kind, currency = change.currency ?? current.currency
            let categoryId = change.categoryId.applied(to: current.categoryId)
            var errors: [FieldError] = []
            // A new currency without a new amount keeps the amount as written ("12.50"), which
            // must then suit the new currency's digits. An amount sent that did not read is
            // refused as it is, not replaced by the stored one.
            let amount = checked.errors.contains { $0.field == "amount" } ? nil : change.amount ?? DecimalAmount(current.amount)
            let minorUnits = scaled(amount, in: currency, into: &errors)
            errors += dateErrors(change.date, now: now) + categoryErrors(categoryId, kind: kind, previous: current.categoryId, state.categories)
            _ = try checked.get(adding: errors)
            guard let minorUnits else { throw ValidationFailure("amount", "is required") }
            let changed = TransactionEvent.Recorded(
                transactionId: current.transactionId, kind: kind, amountMinor: minorUnits, currency: currency, categoryId: categoryId,
                date: change.date ?? current.date, note: change.note.applied(to: current.note))
            return changed == current ? [] : [.changed(.init(transaction: changed))]
        case .delete:
            guard let current = state.transaction else { throw ResourceError.notFound }
            return [.deleted(.init(transactionId: current.transactionId))]
        }
    }

    /// The amount in minor units of `currency`, or nil with why not noted (nil too for an amount
    /// the edge could not read: its error is already there).
    static func scaled(_ amount: DecimalAmount?, in currency: Currency, into errors: inout [FieldError]) -> Int64? {
        guard let amount else { return nil }
        do { return try amount.minorUnits(in: currency) } catch { errors += error.errors; return nil }
    }

    /// A date sent may be at most a year ahead of today (a planned payment).
    static func dateErrors(_ date: LocalDate?, now: DecisionTime) -> [FieldError] {
        guard let date, date > now.today.adding(days: TransactionRules.daysAhead) else { return [] }
        return [FieldError("date", TransactionRules.dateRule)]
    }

    /// The category must be one of the user's, of the transaction's kind; a transaction may keep
    /// an archived category, but may not be moved into one.
    static func categoryErrors(_ id: UUID?, kind: MoneyFlow, previous: UUID?, _ facts: [UUID: TransactionState.CategoryRef]) -> [FieldError] {
        guard let id else { return [] }
        guard let category = facts[id] else { return [FieldError("category_id", "names no category of yours")] }
        var errors: [FieldError] = []
        if category.kind != kind { errors.append(FieldError("category_id", "is an \(category.kind.rawValue) category; this is an \(kind.rawValue)")) }
        if category.archived, id != previous { errors.append(FieldError("category_id", "names an archived category")) }
        return errors
    }

    public static func evolve(_ state: TransactionState, _ event: TransactionEvent) -> TransactionState {
        var state = state
        switch event {
        case .recorded(let recorded): state.transaction = recorded
        case .changed(let changed): state.transaction = changed.transaction
        case .deleted: state.transaction = nil
        }
        return state
    }
}
