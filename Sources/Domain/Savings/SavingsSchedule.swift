import Foundation

/// One due payment of a plan. Its due date names it: versions of a plan never share a month.
public struct SavingsDue: Sendable, Hashable {
    public var dueDate: LocalDate
    public var amount: Int64
    public init(dueDate: LocalDate, amount: Int64) {
        self.dueDate = dueDate
        self.amount = amount
    }
}

/// The occurrences a goal's plan changes define (DESIGN §4), always from each version's anchor,
/// never chained: occurrence k of a version is due on `min(anchor_day, days_in_month)` of month
/// `start_month + k·every_months`. A month belongs to the version set last among those starting
/// on or before it, so a change applies from its start month on and earlier occurrences keep the
/// amount and day they had. An end removes what falls after its date, of the versions before it.
public struct SavingsSchedule: Sendable, Equatable {
    public var changes: [SavingsPlanChange]
    /// No occurrence is ever due after this month: a bound on every walk of an open plan.
    public static let lastMonth = LocalMonth(index: 2100 * 12 + 11)
    public static let firstMonth = LocalMonth(index: 2000 * 12)

    public init(_ changes: [SavingsPlanChange]) { self.changes = changes }

    /// The current plan: the last version set, unless an end came after it.
    public var current: SavingsPlan? {
        guard case .set(let plan)? = changes.last else { return nil }
        return plan
    }

    /// The version that governs `month` and whether its occurrence there survives later ends.
    func due(in month: LocalMonth) -> SavingsDue? {
        var governing: (index: Int, plan: SavingsPlan)?
        for (index, change) in changes.enumerated() {
            if case .set(let plan) = change, plan.startMonth <= month { governing = (index, plan) }
        }
        guard let (index, plan) = governing, plan.hasOccurrence(in: month) else { return nil }
        let date = plan.anchorDay.date(in: month)
        for change in changes[(index + 1)...] {
            if case .ended(let after) = change, date > after { return nil }
        }
        return SavingsDue(dueDate: date, amount: plan.amount)
    }

    /// The last month any version could have an occurrence in.
    var lastPossibleMonth: LocalMonth? {
        var last: LocalMonth?
        for change in changes {
            if case .set(let plan) = change { last = max(last ?? plan.endMonth ?? Self.lastMonth, plan.endMonth ?? Self.lastMonth) }
        }
        // An end that came after every version cuts them all.
        if case .ended(let after)? = changes.last, let bounded = last { last = min(bounded, after.localMonth) }
        return last.map { min($0, Self.lastMonth) }
    }

    var firstPossibleMonth: LocalMonth? {
        changes.compactMap { change -> LocalMonth? in
            if case .set(let plan) = change { return plan.startMonth } else { return nil }
        }.min()
    }

    /// Every occurrence, oldest first, lazily: walks month by month and stops after the last
    /// month any version can reach.
    public var occurrences: Occurrences { Occurrences(schedule: self) }

    /// The occurrences due from `from` through `to`, oldest first.
    public func occurrences(from: LocalDate, through to: LocalDate) -> [SavingsDue] {
        var result: [SavingsDue] = []
        for due in occurrences {
            if due.dueDate > to { break }
            if due.dueDate >= from { result.append(due) }
        }
        return result
    }

    public struct Occurrences: Sequence, IteratorProtocol, Sendable {
        let schedule: SavingsSchedule
        var month: LocalMonth?
        let last: LocalMonth?

        init(schedule: SavingsSchedule) {
            self.schedule = schedule
            month = schedule.firstPossibleMonth
            last = schedule.lastPossibleMonth
        }

        public mutating func next() -> SavingsDue? {
            while let current = month, let last, current <= last {
                month = current.adding(months: 1)
                if let due = schedule.due(in: current) { return due }
            }
            return nil
        }
    }
}
