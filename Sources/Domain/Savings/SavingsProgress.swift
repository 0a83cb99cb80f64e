import Foundation

/// A goal as of a date: balance, progress, what is needed monthly, and its occurrences. Depends
/// only on the goal's plan and movements and the as-of date, never on a window a client asks for;
/// movements dated after the as-of date are ignored.
public struct SavingsProgress: Sendable {
    public var asOf: LocalDate
    public var balance: Int128
    public var allocation: SavingsAllocation
    /// Every occurrence not fully paid and due before the as-of date, oldest first.
    public var overdues: [SavingsOccurrence]
    /// The first occurrence due on or after the as-of date that is not fully paid.
    public var nextPayment: SavingsOccurrence?
    /// Share of the target reached, one decimal, half-even; nil without a target.
    public var progressPercent: String?
    /// What is left to reach the target per month left; see `monthlyNeeded(left:today:targetDate:)`.
    public var monthlyNeeded: Int128?
    public var targetPassed: Bool

    let goal: SavingsGoal

    public init(_ goal: SavingsGoal, asOf: LocalDate) {
        self.goal = goal
        self.asOf = asOf
        let balance = goal.balance(through: asOf)
        self.balance = balance
        allocation = SavingsAllocation(schedule: goal.plan, deposits: goal.deposits(through: asOf))
        var overdues: [SavingsOccurrence] = []
        var next: SavingsOccurrence?
        for due in goal.plan.occurrences {
            let occurrence = SavingsOccurrence(goalId: goal.id, due: due, paid: allocation.paid(due.dueDate), asOf: asOf)
            if occurrence.status == .overdue { overdues.append(occurrence) }
            if due.dueDate >= asOf, occurrence.status != .paid {
                next = occurrence
                break
            }
        }
        self.overdues = overdues
        nextPayment = next
        progressPercent = goal.targetAmount.flatMap { Percent.of(balance, $0) }
        targetPassed = goal.targetDate.map { asOf > $0 } ?? false
        monthlyNeeded = goal.targetAmount.flatMap { target in
            goal.targetDate.map { Self.monthlyNeeded(left: Int128(target) - balance, today: asOf, targetDate: $0) }
        }
    }

    /// The occurrences due from `from` through `to`, each with its status as of the as-of date.
    public func occurrences(from: LocalDate, through to: LocalDate) -> [SavingsOccurrence] {
        goal.plan.occurrences(from: from, through: to).map {
            SavingsOccurrence(goalId: goal.id, due: $0, paid: allocation.paid($0.dueDate), asOf: asOf)
        }
    }

    /// What is left to reach the target divided by the months left from today to the target
    /// date (never by the goal's whole span), rounded up to the minor unit so that paying it
    /// every month reaches the target. Months left count whole months from today, a part of a
    /// month counting as one (Mar 15 → Jun 15 is 3, → Jun 30 is 4), and at least 1 up to the
    /// target date itself. Zero once reached; after the target date, everything still missing.
    public static func monthlyNeeded(left: Int128, today: LocalDate, targetDate: LocalDate) -> Int128 {
        guard left > 0 else { return 0 }
        guard today <= targetDate else { return left }
        let months = Int128(monthsLeft(from: today, to: targetDate))
        return (left + months - 1) / months
    }

    /// Whole months from `today` to `target`, a part of a month counting as one; at least 1.
    public static func monthsLeft(from today: LocalDate, to target: LocalDate) -> Int {
        var whole = today.localMonth.months(until: target.localMonth)
        if today.addingMonths(whole, anchorDay: today.day) > target { whole -= 1 }
        if today.addingMonths(whole, anchorDay: today.day) < target { whole += 1 }
        return max(1, whole)
    }
}
