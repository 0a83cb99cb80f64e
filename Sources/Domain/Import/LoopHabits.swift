import Foundation

/// Loop Habit Tracker's CSV export (iSoron/uhabits, `HabitsCSVExporter`), read: a zip with
/// `Habits.csv` (one row a habit, `Position` its folder's number) and a folder per habit,
/// `NNN Name/Checkmarks.csv`, one row a day that has an entry, newest first.
///
/// Two generations of the files are read. Since mid-2025 `Habits.csv` has
/// `Position, Name, Type, Question, Description, FrequencyNumerator, FrequencyDenominator, Color,
/// Unit, Target Type, Target Value, Archived?` and `Checkmarks.csv` a header `Date, Value, Notes`
/// with the value's name (`YES_MANUAL`, `YES_AUTO`, `NO`, `SKIP`, `UNKNOWN`) or, for a numeric
/// habit, the number of thousandths. Before, `Habits.csv` had `Position, Name, Question,
/// Description, NumRepetitions, Interval, Color` and `Checkmarks.csv` no header and numbers only
/// (2 done, 1 done by the frequency, 0 not done, 3 skipped, -1 unknown). Loop writes a numeric
/// habit's values 3, 2, 1, 0 and -1 under those names too: they are its entry codes, the same field.
public enum LoopHabits {
    public typealias Unreadable = LifelogImportLine.Unreadable

    /// One row of `Habits.csv`.
    public struct HabitRow: Sendable, Equatable {
        public var place: ImportPlace
        public var position: Int
        public var name: String
        /// Nil in the older export, which does not say.
        public var numeric: Bool?
        public var numerator: Int
        public var denominator: Int
        public var color: String?
        public var unit: String?
        public var atMost: Bool
        public var target: Decimal?
        public var archived: Bool
    }

    /// A day's entry as Loop keeps it (`Entry.value`).
    public enum Value: Sendable, Equatable {
        case yesManual, yesAuto, no, skip, unknown
        /// A numeric habit's value, in thousandths.
        case thousandths(Int)

        init?(_ text: String) {
            switch text.trimmingCharacters(in: .whitespaces) {
            case "YES_MANUAL", "2": self = .yesManual
            case "YES_AUTO", "1": self = .yesAuto
            case "NO", "0": self = .no
            case "SKIP", "3": self = .skip
            case "UNKNOWN", "-1": self = .unknown
            case let number: guard let value = Int(number) else { return nil }; self = .thousandths(value)
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        public var place: ImportPlace
        public var date: LocalDate
        public var value: Value
    }

    /// The habits of `Habits.csv`; a row that cannot be read is a failure of its line.
    public static func habits(_ text: String, file: String = "Habits.csv") throws(Unreadable) -> [Result<HabitRow, ImportFailure>] {
        let table: CSVTable
        do { table = try CSVTable(text) } catch { throw Unreadable("\(file) \(error)") }
        let columns = (position: table.column("Position"), name: table.column("Name"), type: table.column("Type"),
                       numerator: table.column("FrequencyNumerator") ?? table.column("NumRepetitions"),
                       denominator: table.column("FrequencyDenominator") ?? table.column("Interval"), color: table.column("Color"),
                       unit: table.column("Unit"), targetType: table.column("Target Type"), target: table.column("Target Value"),
                       archived: table.column("Archived?"))
        guard columns.position != nil, columns.name != nil, columns.numerator != nil, columns.denominator != nil else {
            throw Unreadable("\(file) is not Loop Habit Tracker's (no Position, Name and frequency columns)")
        }
        return table.rows.map { row in
            let place = ImportPlace(file: file, line: row.line)
            let field = { (column: Int?) in table.value(row, column).trimmingCharacters(in: .whitespaces) }
            let name = table.value(row, columns.name)
            guard let position = Int(field(columns.position)), let numerator = Int(field(columns.numerator)),
                  let denominator = Int(field(columns.denominator)), numerator > 0, denominator > 0, !name.isEmpty
            else { return .failure(ImportFailure(place: place, reason: "a habit needs a position, a name and a frequency of whole numbers above 0")) }
            let type = field(columns.type)
            let nonEmpty = { (text: String) in text.isEmpty ? nil : text }
            return .success(HabitRow(
                place: place, position: position, name: name, numeric: columns.type == nil ? nil : type == "NUMERICAL",
                numerator: numerator, denominator: denominator, color: nonEmpty(field(columns.color)), unit: nonEmpty(field(columns.unit)),
                atMost: field(columns.targetType) == "AT_MOST",
                target: nonEmpty(field(columns.target)).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) },
                archived: field(columns.archived).lowercased() == "true"))
        }
    }

    /// The entries of one habit's `Checkmarks.csv` (either generation); a row that cannot be
    /// read is a failure of its line.
    public static func entries(_ text: String, file: String) throws(Unreadable) -> [Result<Entry, ImportFailure>] {
        let rows: [CSVTable.Row]
        do { rows = try CSVTable.records(Array(text.utf8)) } catch { throw Unreadable("\(file) \(error)") }
        return rows.filter { $0.fields.first?.trimmingCharacters(in: .whitespaces) != "Date" }.map { row in
            let place = ImportPlace(file: file, line: row.line)
            guard let date = LocalDate(input: row.fields[0].trimmingCharacters(in: .whitespaces)) else {
                return .failure(ImportFailure(place: place, reason: "the date is not a date as YYYY-MM-DD"))
            }
            guard row.fields.count > 1, let value = Value(row.fields[1]) else {
                return .failure(ImportFailure(place: place, reason: "the value is not one Loop writes"))
            }
            return .success(Entry(place: place, date: date, value: value))
        }
    }

    /// The folder of the habit at `position` among an export's folders (`001 Meditate`): Loop
    /// names it after the position, then the name with every other character than letters,
    /// digits, spaces, dots, dashes and underscores removed.
    public static func folder(of position: Int, among folders: [String]) -> String? {
        folders.sorted().first { folder in
            let digits = folder.prefix { $0.isNumber }
            return !digits.isEmpty && Int(digits) == position
        }
    }
}
