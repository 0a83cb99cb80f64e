import Foundation

/// Every rule about one transaction.
public enum TransactionDecider: Decider {
    public static let initial = TransactionState()

    /// How far ahead a transaction may be dated (a planned payment), and how far back.
    static let earliest = LocalDate(year: 1900, month: 1, day: 1) ?? LocalDate(daysSinceEpoch: -25_567)
    static let daysAhead = 366

    public static func decide(_ state: TransactionState, _ command: TransactionCommand, _ now: DecisionTime) throws -> [TransactionEvent] {
        let facts = state.categories
        switch command {
        case .record(let id, let draft, let currency):
            guard state.transaction == nil else { return [] }
            var errors: [FieldError] = []
            if draft.kind == nil { errors.append(FieldError("kind", "is required: income or expense")) }
            if draft.amount == nil { errors.append(FieldError("amount", "is required")) }
            try ValidationFailure.check(errors)
            let recorded = try checked(
                id: id, kind: draft.kind ?? .expense, amount: draft.amount ?? "", currency: draft.currency, fallbackCurrency: currency,
                categoryId: draft.categoryId, previousCategory: nil, date: draft.date, fallbackDate: now.today, note: draft.note, facts: facts, now: now)
            return [.recorded(recorded)]
        case .change(let change):
            guard let current = state.transaction else { throw ResourceError.notFound }
            // A new currency without a new amount keeps the amount as written ("12.50"), which
            // must then suit the new currency's digits.
            let amount = change.amount ?? current.amount.description
            let changed = try checked(
                id: current.transactionId, kind: change.kind ?? current.kind, amount: amount, currency: change.currency,
                fallbackCurrency: current.currency, categoryId: change.categoryId.applied(to: current.categoryId),
                previousCategory: current.categoryId, date: change.date, fallbackDate: current.date,
                note: change.note.applied(to: current.note), facts: facts, now: now)
            return changed == current ? [] : [.changed(.init(transaction: changed))]
        case .delete:
            guard let current = state.transaction else { throw ResourceError.notFound }
            return [.deleted(.init(transactionId: current.transactionId))]
        }
    }

    // swiftlint:disable:next function_parameter_count
    static func checked(
        id: UUID, kind: MoneyFlow, amount: String, currency rawCurrency: String?, fallbackCurrency: Currency, categoryId: UUID?,
        previousCategory: UUID?, date rawDate: String?, fallbackDate: LocalDate, note: String?, facts: [UUID: TransactionState.CategoryRef], now: DecisionTime
    ) throws -> TransactionEvent.Recorded {
        var errors: [FieldError] = []
        var currency: Currency? = fallbackCurrency
        if let rawCurrency {
            currency = Currency(rawCurrency)
            if currency == nil { errors.append(FieldError("currency", "must be an ISO 4217 code such as EUR")) }
        }
        var minorUnits: Int64?
        if let currency {
            do { minorUnits = try Money.parseMinorUnits(amount, currency: currency) } catch { errors += error.errors }
        }
        var date = fallbackDate
        if let rawDate {
            if let parsed = LocalDate(rawDate), parsed >= earliest, parsed <= now.today.adding(days: daysAhead) {
                date = parsed
            } else {
                errors.append(FieldError("date", "must be a date as YYYY-MM-DD, from 1900 to a year from today"))
            }
        }
        if let categoryId {
            if let category = facts[categoryId] {
                if category.kind != kind { errors.append(FieldError("category_id", "is an \(category.kind.rawValue) category; this is an \(kind.rawValue)")) }
                // A transaction may keep an archived category; it may not be moved into one.
                if category.archived, categoryId != previousCategory { errors.append(FieldError("category_id", "names an archived category")) }
            } else {
                errors.append(FieldError("category_id", "names no category of yours"))
            }
        }
        if let note, note.count > 1_000 || note.contains("\0") { errors.append(FieldError("note", "must be at most 1000 characters, without NUL")) }
        try ValidationFailure.check(errors)
        guard let minorUnits, let currency else { throw ValidationFailure(errors) }
        return TransactionEvent.Recorded(
            transactionId: id, kind: kind, amountMinor: minorUnits, currency: currency, categoryId: categoryId, date: date, note: note)
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
