import Domain
import Foundation
import Projections

/// Each goal's plan and movements, and its progress as of a day, kept with the goal's stream
/// version. Every goal event moves `rm_savings_goals.version`, so an entry whose version matches
/// the row is exactly what the database holds: the overview of 20 goals with years of deposits
/// then reads 20 small rows instead of every movement, and recomputes no allocation. Bounded,
/// and right with several server instances (the version comes from the database).
actor SavingsGoalCache {
    struct Facts: Sendable {
        var version: Int64
        var plan: SavingsSchedule
        var movements: [SavingsGoal.Movement]
    }
    struct ProgressKey: Hashable {
        var goalId: UUID
        var version: Int64
        var asOf: LocalDate
    }

    private var facts: [UUID: Facts] = [:]
    private var progress: [ProgressKey: SavingsProgress] = [:]
    private let capacity: Int

    init(capacity: Int = 20_000) { self.capacity = capacity }

    func facts(_ goals: [SavingsGoal]) -> [UUID: Facts] {
        var found: [UUID: Facts] = [:]
        for goal in goals {
            if let entry = facts[goal.id], entry.version == goal.version { found[goal.id] = entry }
        }
        return found
    }

    /// Keeps the newer of two entries for a goal: a slow request must not put back an older version.
    func store(_ entries: [UUID: Facts]) {
        if facts.count + entries.count > capacity { facts.removeAll(keepingCapacity: true) }
        facts.merge(entries) { old, new in new.version >= old.version ? new : old }
    }

    func progress(_ key: ProgressKey) -> SavingsProgress? { progress[key] }

    func store(_ value: SavingsProgress, for key: ProgressKey) {
        if progress.count >= capacity { progress.removeAll(keepingCapacity: true) }
        progress[key] = value
    }
}
