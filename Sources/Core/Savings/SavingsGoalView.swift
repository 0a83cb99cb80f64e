import Domain
import Foundation
import Projections

/// A goal as a reader sees it as of a date.
public struct SavingsGoalView: Sendable {
    public var goal: SavingsGoal
    public var role: SavingsGoal.Role
    public var createdAt: Date
    public var progress: SavingsProgress

    public init(_ access: SavingsGoalAccess, asOf: LocalDate) {
        goal = access.goal
        role = access.role
        createdAt = access.createdAt
        progress = SavingsProgress(access.goal, asOf: asOf)
    }

    /// With the progress already known for this goal's version and day.
    init(_ access: SavingsGoalAccess, progress: SavingsProgress) {
        goal = access.goal
        role = access.role
        createdAt = access.createdAt
        self.progress = progress
    }
}
