import Foundation

/// One workout seen by two sources is one workout: two that start within 120 s of each other
/// and last within 10 % of each other are the same, and the higher-priority source's is kept.
public enum WorkoutMerge {
    public static let startTolerance: Int64 = 120
    public static let durationTolerance = 0.10

    public static func merged(_ workouts: [HealthRecord], priority: HealthSourcePriority) -> [HealthRecord] {
        let ranked = workouts.sorted { lhs, rhs in
            lhs.source != rhs.source ? priority.precedes(lhs.source, rhs.source) : lhs.startSeconds < rhs.startSeconds
        }
        var kept: [HealthRecord] = []
        for workout in ranked where !kept.contains(where: { sameWorkout($0, workout) }) {
            kept.append(workout)
        }
        return kept.sorted { ($0.startSeconds, $0.key) < ($1.startSeconds, $1.key) }
    }

    static func sameWorkout(_ lhs: HealthRecord, _ rhs: HealthRecord) -> Bool {
        guard abs(lhs.startSeconds - rhs.startSeconds) <= startTolerance else { return false }
        let (left, right) = (Double(lhs.endSeconds - lhs.startSeconds), Double(rhs.endSeconds - rhs.startSeconds))
        let longer = Swift.max(left, right)
        return longer == 0 || abs(left - right) / longer <= durationTolerance
    }
}
