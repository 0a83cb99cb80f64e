import Domain
import Foundation

/// A movement with the occurrences its deposit pays (derived with every deposit of the goal).
public struct SavingsMovementView: Sendable {
    public var goalId: UUID
    public var currency: Currency
    public var movement: SavingsGoal.Movement
    /// Due date and amount of each occurrence this deposit pays, oldest first.
    public var pays: [(dueDate: LocalDate, amount: Int64)]

    /// Every movement of the goal, by date then entry.
    static func all(of goal: SavingsGoal) -> [SavingsMovementView] {
        let allocation = SavingsAllocation(schedule: goal.plan, deposits: goal.deposits())
        return goal.movements.sorted { ($0.date, $0.order) < ($1.date, $1.order) }.map { movement in
            let pays = (allocation.byDeposit[movement.id] ?? [:]).sorted { $0.key < $1.key }.map { (dueDate: $0.key, amount: $0.value) }
            return SavingsMovementView(goalId: goal.id, currency: goal.currency, movement: movement, pays: pays)
        }
    }
}
