import Domain
import Foundation

/// The whole picture as of a date, across every goal the user owns or shares.
public struct SavingsOverview: Sendable {
    public var asOf: LocalDate
    public var goals: [SavingsGoalView]
    /// Balance per currency, currencies in code order. Every sum here is exact at any size
    /// (128 bits: many goals' balances or overdue payments may pass `Int64.max`).
    public var balances: [Money]
    /// Every occurrence due in the as-of month, by due date.
    public var monthlyPaymentDetails: [(SavingsGoalView, SavingsOccurrence)]
    /// Every overdue occurrence across all goals, oldest first.
    public var overdues: [(SavingsGoalView, SavingsOccurrence)]
    /// The remaining amounts of the overdue occurrences, per currency.
    public var overdueTotal: [Money]
    /// The next occurrence of each goal that has one.
    public var nextPayments: [(SavingsGoalView, SavingsOccurrence)]

    public init(goals: [SavingsGoalView], asOf: LocalDate) {
        self.asOf = asOf
        self.goals = goals
        func byCurrency(_ pairs: [(Currency, Int128)]) -> [Money] {
            Dictionary(pairs, uniquingKeysWith: +).map { Money(minorUnits: $0.value, currency: $0.key) }.sorted { $0.currency < $1.currency }
        }
        // Goals come in creation order (then id): their position breaks ties of a due date.
        let rank = Dictionary(goals.enumerated().map { ($0.element.goal.id, $0.offset) }) { first, _ in first }
        func ordered(_ list: [(SavingsGoalView, SavingsOccurrence)]) -> [(SavingsGoalView, SavingsOccurrence)] {
            list.map { (rank[$0.0.goal.id] ?? 0, $0) }
                .sorted { ($0.1.1.dueDate, $0.0) < ($1.1.1.dueDate, $1.0) }
                .map(\.1)
        }
        balances = byCurrency(goals.map { ($0.goal.currency, $0.progress.balance) })
        let month = asOf.localMonth
        monthlyPaymentDetails = ordered(goals.flatMap { view in
            view.progress.occurrences(from: month.firstDay, through: month.lastDay).map { (view, $0) }
        })
        overdues = ordered(goals.flatMap { view in view.progress.overdues.map { (view, $0) } })
        overdueTotal = byCurrency(overdues.map { ($0.0.goal.currency, Int128($0.1.remaining)) })
        nextPayments = ordered(goals.compactMap { view in view.progress.nextPayment.map { (view, $0) } })
    }
}
