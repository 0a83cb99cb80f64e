import Domain
import Foundation

// An import's savings commands, through `SavingsService`: the one place an import builds the
// savings drafts and reads them into the commands' typed inputs, as the routes do at their edge. Members are other
// accounts and are not carried; a movement a member entered is the account's own in the copy.
extension ImportService {
    func goalId(_ owner: UUID, goalKey: String) -> UUID { id(owner, goalKey, "savings-goal") }

    func goalStep(_ owner: UUID, key: String, _ goal: LifelogImportLine.SavingsGoalLine) -> ImportStep {
        let savings = self.savings
        return ImportStep(key) { context in
            let draft = SavingsGoalDraft(name: goal.name, emoji: goal.emoji, currency: goal.currency,
                                         targetAmount: goal.targetAmount, targetDate: goal.targetDate?.description)
            _ = try await savings.create(context, try NewSavingsGoal.validated(from: draft).get())
            return nil
        }
    }

    /// A version of the plan, or its end. An end on a past day is written as the version in force
    /// (`current`) ending with its last payment by then (ending a plan ends it today).
    func planStep(_ owner: UUID, key: String, goalKey: String, _ change: LifelogImportLine.PlanLine.Change,
                  current: LifelogImportLine.PlanLine.Change?) -> ImportStep {
        let savings = self.savings, goalId = goalId(owner, goalKey: goalKey)
        return ImportStep(key) { context in
            var version = change
            if case .ended(let after) = change {
                let today = try await self.today(owner)
                if after >= today {
                    try await refusingUnknownGoal { try await savings.endPlan(context, goalId) }
                    return nil
                }
                guard let current, let ending = LifelogImportLine.PlanLine.Change.ending(current, after: after) else {
                    throw ImportRefusal("a plan ended on \(after), before its first payment: here a plan ends on the day it is ended")
                }
                version = ending
            }
            guard case .set(let amount, let anchor, let every, let start, let end) = version else { return false }
            let draft = SavingsPlanDraft(amount: amount, anchorDay: anchor, everyMonths: every, startMonth: start.description,
                                         endMonth: end?.description)
            let plan = try NewSavingsPlan.checked(from: draft).get()
            try await refusingUnknownGoal { _ = try await savings.setPlan(context, goalId, plan) }
            return nil
        }
    }

    func movementStep(_ owner: UUID, key: String, goalKey: String, _ movement: LifelogImportLine.MovementLine) -> ImportStep {
        let savings = self.savings, goalId = goalId(owner, goalKey: goalKey)
        return ImportStep(key) { context in
            let draft = SavingsMovementDraft(kind: movement.kind, amount: movement.amount, currency: movement.currency,
                                             date: movement.date.description, note: movement.note, occurrence: movement.occurrence?.description)
            let new = try NewSavingsMovement.checked(from: draft).get()
            try await refusingUnknownGoal { _ = try await savings.addMovement(context, goalId, new) }
            return nil
        }
    }

    func refusingUnknownGoal(_ body: () async throws -> Void) async throws {
        do { try await body() } catch ResourceError.notFound { throw ImportRefusal("goal_id: no goal of this file has this id") }
    }
}
