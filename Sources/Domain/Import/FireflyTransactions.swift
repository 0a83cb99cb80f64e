import Foundation

/// Firefly III's transactions export (`ExportDataGenerator::exportTransactions`: League\Csv, a
/// header row, one row a transaction journal, a split's parts each a row of their own), read
/// into transactions of ours. The columns used: `journal_id` (the row's identity, with
/// `created_at`), `type`, `currency_code`, `amount` (a decimal string rounded to the currency's
/// places, negative for a withdrawal), `description`, `date` (ISO 8601 with the offset of
/// Firefly's zone: its date part is the day), `category`, `notes`. Withdrawals are expenses,
/// deposits incomes; transfers move money between one's own accounts and are skipped, as are
/// opening balances, reconciliations and liability credits (an account's figures, not money
/// earned or spent). Budgets, bills, tags, accounts and foreign amounts are not carried.
public enum FireflyTransactions {
    public typealias Unreadable = LifelogImportLine.Unreadable

    public struct Transaction: Sendable, Equatable {
        public var place: ImportPlace
        /// What identifies the row in any later export of the same Firefly: its journal id and
        /// creation time (or the whole row, for an export without them).
        public var key: String
        public var kind: MoneyFlow
        /// Exact, in minor units of `currency`.
        public var amount: Money
        public var date: LocalDate
        public var note: String?
        /// The category's name; nil for none.
        public var category: String?
    }

    /// What becomes of one row.
    public enum Row: Sendable, Equatable {
        case transaction(Transaction)
        case other(ImportPlace, ImportOutcome)
    }

    /// A note holds at most this many characters (the transaction's rule).
    static let noteLength = 1_000

    public static func rows(_ text: String) throws(Unreadable) -> [Row] {
        let table: CSVTable
        do { table = try CSVTable(text) } catch { throw Unreadable(error.description) }
        let type = table.column("type"), amount = table.column("amount"), currency = table.column("currency_code"), date = table.column("date")
        guard type != nil, amount != nil, currency != nil, date != nil else {
            throw Unreadable("not a Firefly III transactions export: it needs the columns type, amount, currency_code and date")
        }
        let journal = table.column("journal_id"), created = table.column("created_at"), description = table.column("description")
        let category = table.column("category"), notes = table.column("notes")
        return table.rows.map { row in
            let place = ImportPlace(line: row.line)
            let field = { (column: Int?) in table.value(row, column).trimmingCharacters(in: .whitespacesAndNewlines) }
            let kind: MoneyFlow
            switch field(type) {
            case "Withdrawal": kind = .expense
            case "Deposit": kind = .income
            case "Transfer": return .other(place, .skipped("Transfer: money moved between your own accounts, neither earned nor spent"))
            case "Opening balance": return .other(place, .skipped("Opening balance: an account's starting figure, neither earned nor spent"))
            case "Reconciliation": return .other(place, .skipped("Reconciliation: a correction of an account's balance, neither earned nor spent"))
            case "Liability credit": return .other(place, .skipped("Liability credit: a debt's starting figure, neither earned nor spent"))
            case let other: return .other(place, .failed("type \(other.isEmpty ? "(empty)" : other) is not Withdrawal, Deposit or Transfer"))
            }
            let money: Money
            do throws(Unreadable) { money = try Self.amount(field(amount), currency: field(currency)) } catch { return .other(place, .failed(error.reason)) }
            if money.minorUnits == 0 { return .other(place, .skipped("an amount of zero: no money moved")) }
            guard let day = LocalDate(input: String(field(date).prefix(10))) else {
                return .other(place, .failed("date: must start with a date as YYYY-MM-DD"))
            }
            let identity = field(journal).isEmpty ? row.fields.joined(separator: "\u{1F}") : "\(field(journal))@\(field(created))"
            let name = field(category)
            return .transaction(Transaction(place: place, key: identity, kind: kind, amount: money, date: day,
                                            note: note(description: field(description), notes: field(notes)), category: name.isEmpty ? nil : name))
        }
    }

    /// `-12.50` (a withdrawal) or `2500.00`, in `code`'s minor units, exactly. Firefly rounds to
    /// its own places for the currency; more places than ours are fine when they are zeros.
    static func amount(_ text: String, currency code: String) throws(Unreadable) -> Money {
        guard let currency = Currency(code) else { throw Unreadable("currency_code: \(code.isEmpty ? "(empty)" : code) is not an ISO 4217 code lifelog knows") }
        var digits = text.hasPrefix("-") || text.hasPrefix("+") ? String(text.dropFirst()) : text
        if let point = digits.firstIndex(of: ".") {
            let fraction = digits[digits.index(after: point)...]
            let kept = fraction.count > currency.minorDigits && fraction.dropFirst(currency.minorDigits).allSatisfy { $0 == "0" }
                ? fraction.prefix(currency.minorDigits) : fraction
            digits = String(digits[..<point]) + (kept.isEmpty ? "" : "." + kept)
        }
        if digits.allSatisfy({ $0 == "0" || $0 == "." }), !digits.isEmpty { return Money.zero(currency) }
        do { return try Money.parse(digits, currency: currency) } catch { throw Unreadable(error.detail) }
    }

    /// The description, and Firefly's notes after it when there is room.
    static func note(description: String, notes: String) -> String? {
        var note = description
        if !notes.isEmpty, notes != description {
            note = note.isEmpty ? notes : note + "\n" + notes
        }
        guard !note.isEmpty else { return nil }
        return note.count <= noteLength ? note : String(note.prefix(noteLength - 1)) + "…"
    }
}
