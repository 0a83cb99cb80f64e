import Foundation

// The rules a transaction's draft alone decides. What needs the user's currency, the stored
// transaction, its categories or today (an amount's digits, a date at most a year ahead, a
// category of the right kind) stays with `TransactionDecider`, which reports both at once.

extension TransactionFields: CheckedInput where Amount == DecimalAmount, Code == Currency, Day == LocalDate {
    public static var fieldOrder: [String] { TransactionRules.fieldOrder }

    public static func checked(from draft: TransactionDraft) -> Result<Checked<NewTransaction>, ValidationFailure> {
        var required = FieldErrors()
        if draft.kind == nil { required.add(FieldError("kind", "is required: income or expense")) }
        if draft.amount == nil { required.add(FieldError("amount", "is required")) }
        guard required.errors.isEmpty else { return .failure(ValidationFailure(required.errors)) }
        var errors = FieldErrors()
        let (amount, currency) = TransactionRules.read(amount: draft.amount, currency: draft.currency, into: &errors)
        let date = errors.parse(draft.date, field: "date", rule: TransactionRules.dateRule, TransactionRules.date)
        errors.add(TransactionRules.noteError(draft.note))
        return .success(errors.checked(NewTransaction(kind: draft.kind, amount: amount, currency: currency, categoryId: draft.categoryId,
                                                      date: date, note: draft.note)))
    }
}

extension TransactionChangeFields: CheckedInput where Amount == DecimalAmount, Code == Currency, Day == LocalDate {
    public static var fieldOrder: [String] { TransactionRules.fieldOrder }

    public static func checked(from draft: TransactionChangeDraft) -> Result<Checked<TransactionChange>, ValidationFailure> {
        var errors = FieldErrors()
        let (amount, currency) = TransactionRules.read(amount: draft.amount, currency: draft.currency, into: &errors)
        let date = errors.parse(draft.date, field: "date", rule: TransactionRules.dateRule, TransactionRules.date)
        errors.add(TransactionRules.noteError(draft.note.newValue))
        return .success(errors.checked(TransactionChange(kind: draft.kind, amount: amount, currency: currency, categoryId: draft.categoryId,
                                                         date: date, note: draft.note)))
    }
}

enum TransactionRules {
    static let fieldOrder = ["kind", "currency", "amount", "date", "category_id", "note"]

    /// How far back a transaction may be dated, and how far ahead (a planned payment).
    static let earliest = LocalDate(year: 1900, month: 1, day: 1) ?? LocalDate(daysSinceEpoch: -25_567)
    static let daysAhead = 366
    static let dateRule = "must be a date as YYYY-MM-DD, from 1900 to a year from today"

    /// A date sent, from 1900 on (how far ahead it may be depends on today: the decider says).
    static func date(_ text: String) -> LocalDate? {
        LocalDate(text).flatMap { $0 >= earliest ? $0 : nil }
    }

    /// The currency sent and the amount, as far as they read. A currency that is no ISO code
    /// says nothing of the digits an amount may have, so the amount is then not read at all.
    static func read(amount: String?, currency: String?, into errors: inout FieldErrors) -> (DecimalAmount?, Currency?) {
        let code = errors.parse(currency, field: "currency", rule: "must be an ISO 4217 code such as EUR", Currency.init)
        if currency != nil, code == nil { return (nil, nil) }
        return (errors.read(amount) { text throws(ValidationFailure) in try DecimalAmount(text) }, code)
    }

    static func noteError(_ note: String?) -> FieldError? {
        guard let note, note.count > 1_000 || note.contains("\0") else { return nil }
        return FieldError("note", "must be at most 1000 characters, without NUL")
    }
}
