extension LifelogImportLine.PlanLine.Change {
    /// A plan ended after `date` (a past day: ending a plan ends it today) written as the version
    /// in force, `current`, ending with the last month it fell due on or before `date`: the same
    /// occurrences. Nil when it had not fallen due by then.
    public static func ending(_ current: Self, after date: LocalDate) -> Self? {
        guard case .set(let amount, let anchor, let every, let start, let end) = current else { return nil }
        let plan = SavingsPlan(amount: 0, anchorDay: anchor, everyMonths: every, startMonth: start, endMonth: end)
        var month = min(LocalMonth(date), end ?? LocalMonth(date))
        while month >= start {
            if plan.hasOccurrence(in: month), anchor.date(in: month) <= date {
                return .set(amount: amount, anchorDay: anchor, everyMonths: every, startMonth: start, endMonth: month)
            }
            month = month.adding(months: -1)
        }
        return nil
    }
}
