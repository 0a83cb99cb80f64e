import Foundation

extension LoopHabits {
    /// What an import makes of one Loop habit and its entries: the habit, its logs, its freezes
    /// (runs of skipped days), and what becomes of every other entry.
    public struct Plan: Sendable, Equatable {
        public struct Log: Sendable, Equatable {
            public var place: ImportPlace
            public var date: LocalDate
            /// A numeric habit's value; nil for a yes/no habit.
            public var value: Decimal?
        }

        public struct Freeze: Sendable, Equatable {
            /// The skipped days' rows.
            public var places: [ImportPlace]
            public var range: Habit.Freeze
        }

        public var row: HabitRow
        /// The habit as created; nil when it is not imported, for `refusal`'s reason.
        public var definition: HabitDefinition?
        /// Why the habit (and so each of its entries) is not imported.
        public var refusal: ImportOutcome?
        public var logs: [Log] = []
        public var freezes: [Freeze] = []
        /// Entries that are neither, with what becomes of them.
        public var others: [(ImportPlace, ImportOutcome)] = []
        public var notes: [String] = []

        public static func == (lhs: Plan, rhs: Plan) -> Bool {
            lhs.row == rhs.row && lhs.definition == rhs.definition && lhs.refusal == rhs.refusal && lhs.logs == rhs.logs
                && lhs.freezes == rhs.freezes && lhs.notes == rhs.notes
                && lhs.others.map(\.0) == rhs.others.map(\.0) && lhs.others.map(\.1) == rhs.others.map(\.1)
        }
    }

    static let autoReason = "YES_AUTO: done by Loop's frequency rule, not checked; here the schedule decides that"
    static let noReason = "NO: not done, a day without a log"
    static let unknownReason = "UNKNOWN: no entry"
    static let zeroReason = "0: nothing done, a day without a log"
    static let offDayReason = "SKIP on a day the habit is not due: it excuses nothing"

    /// The plan for `row` and its entries, `today` being the account's logical today (the
    /// window of a habit's history ends ten years before it).
    public static func plan(_ row: HabitRow, entries: [Entry], today: LocalDate) -> Plan {
        var plan = Plan(row: row)
        let numeric = row.numeric ?? entries.contains { if case .thousandths(let value) = $0.value { value > 3 || value < -1 } else { false } }
        if row.atMost {
            plan.refusal = .skipped("a habit with an \"at most\" target: here a numeric habit is done when the day's sum reaches its target")
        } else if numeric, row.target == nil {
            plan.refusal = .failed("a numeric habit without its target (an export of an older Loop): export it again from a current Loop")
        }
        let (schedule, note) = schedule(numerator: row.numerator, denominator: row.denominator)
        if let note { plan.notes.append("\(row.name): \(note)") }
        let earliest = HabitDateWindow(today: today).earliest
        let inWindow = entries.filter { $0.date >= earliest }
        let start = inWindow.map(\.date).min() ?? today
        let draft = HabitDraft(name: row.name, color: row.color, kind: numeric ? "numeric" : "boolean", target: numeric ? row.target : nil,
                               unit: numeric ? row.unit : nil, schedule: schedule, startDate: start.description)
        if plan.refusal == nil {
            switch HabitDefinition.validated(from: draft) {
            case .success(let definition): plan.definition = definition
            case .failure(let failure): plan.refusal = .failed(failure.errors.map { "\($0.field): \($0.message)" }.joined(separator: "; "))
            }
        }
        if let refusal = plan.refusal {
            plan.others = entries.map { ($0.place, refusal) }
            return plan
        }
        var skips: [Entry] = []
        for entry in entries.sorted(by: { $0.date < $1.date }) {
            if entry.date < earliest {
                plan.others.append((entry.place, .skipped("before \(earliest): a habit keeps ten years of history")))
                continue
            }
            switch (entry.value, numeric) {
            case (.skip, _):
                if schedule.isWeekly || schedule.isScheduled(entry.date, start: start) { skips.append(entry) }
                else { plan.others.append((entry.place, .skipped(offDayReason))) }
            case (.yesManual, false): plan.logs.append(.init(place: entry.place, date: entry.date, value: nil))
            case (.yesAuto, false): plan.others.append((entry.place, .skipped(autoReason)))
            case (.no, false): plan.others.append((entry.place, .skipped(noReason)))
            case (.unknown, _): plan.others.append((entry.place, .skipped(unknownReason)))
            case (.no, true): plan.others.append((entry.place, .skipped(zeroReason)))
            case (.yesManual, true): plan.logs.append(.init(place: entry.place, date: entry.date, value: Decimal(2) / 1000))
            case (.yesAuto, true): plan.logs.append(.init(place: entry.place, date: entry.date, value: Decimal(1) / 1000))
            case (.thousandths(let value), true) where value > 0:
                plan.logs.append(.init(place: entry.place, date: entry.date, value: Decimal(value) / 1000))
            case (.thousandths(let value), _):
                plan.others.append((entry.place, .failed("\(value) is not a value Loop writes for a \(numeric ? "numeric" : "yes/no") habit")))
            }
        }
        plan.freezes = freezes(skips)
        return plan
    }

    /// Runs of consecutive skipped days, each one freeze.
    static func freezes(_ skips: [Entry]) -> [Plan.Freeze] {
        var result: [Plan.Freeze] = []
        for entry in skips {
            if var last = result.last, last.range.to.adding(days: 1) == entry.date {
                last.range.to = entry.date
                last.places.append(entry.place)
                result[result.count - 1] = last
            } else {
                result.append(.init(places: [entry.place], range: Habit.Freeze(from: entry.date, to: entry.date, reason: "skipped in Loop")))
            }
        }
        return result
    }

    /// Loop's frequency (`numerator` times in `denominator` days; Loop counts a 30- or 31-day
    /// denominator as a month) as a schedule of ours, with a note when ours is not the same:
    /// 1/1 is every day, N/7 N times a week, 1/N every N days; N times a month and other
    /// fractions have no equal and take the nearest (N times a week for about one a week or
    /// more, every N days for less).
    public static func schedule(numerator: Int, denominator: Int) -> (HabitSchedule, note: String?) {
        if numerator >= denominator || denominator == 1 { return (.daily, nil) }
        if denominator == 7 { return (.timesPerWeek(min(numerator, 7)), nil) }
        let month = denominator == 30 || denominator == 31
        if numerator == 1, !month { return (.everyNDays(min(denominator, 365)), nil) }
        let said = month ? "\(numerator) times a month" : "\(numerator) times in \(denominator) days"
        let perWeek = (Double(numerator) * 7 / Double(month ? 30 : denominator)).rounded()
        if perWeek >= 1 {
            let count = Int(min(perWeek, 7))
            return (.timesPerWeek(count), "\(said) has no equal here; imported as \(count) times a week")
        }
        let days = Int((Double(month ? 30 : denominator) / Double(numerator)).rounded())
        let every = min(max(days, 2), 365)
        return (.everyNDays(every), "\(said) has no equal here; imported as every \(every) days")
    }
}
