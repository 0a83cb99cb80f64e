import Domain
import Foundation

/// What the lines of a lifelog export refer to in earlier lines, kept while the file is read.
struct LifelogImportMemory: Sendable {
    /// A task's repeat (by its id in the file) → the task whose completion creates it.
    var createdBy: [UUID: UUID] = [:]
    /// Each goal's plan version in force, for an end that has to be written as one.
    var currentPlan: [UUID: LifelogImportLine.PlanLine.Change] = [:]
    /// Categories of the file that the account already had, by name (file id → the account's).
    let categories = CategoryMap()
    /// The account's ids of this file's categories, and their kinds and names.
    var fileCategories: Set<UUID> = []
    var categoryNames: Set<String> = []
    /// Completions of repeating tasks, kept for the line of the repeat each creates (by its id).
    var completions: [UUID: ImportStep] = [:]

    /// Completions whose repeat the file does not have (deleted after it was exported, or never
    /// kept), run at the end. In a whole file (`removeRepeats`), the repeat each creates is
    /// removed again, so the copy has what the file has; a file cut short keeps them.
    func repeatsNotInFile(service: ImportService, owner: UUID, prefix: String, removeRepeats: Bool) -> [ImportItem] {
        completions.sorted { $0.key.uuidString < $1.key.uuidString }.map { repeatId, completion in
            let completed = createdBy[repeatId] ?? repeatId
            let removal = service.taskRemoval(owner, createdBy: prefix + LifelogImport.key("task", completed) + "/complete")
            return ImportItem(place: ImportPlace(line: 0), lane: "tasks", steps: [completion] + (removeRepeats ? [removal] : []))
        }
    }
}

/// File category ids mapped to a category the account already had by that name and kind.
/// Written by the categories' batch, read by the budgets' and transactions' later.
final class CategoryMap: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [UUID: UUID] = [:]

    func set(_ fileId: UUID, _ accountId: UUID) { lock.withLock { ids[fileId] = accountId } }
    func get(_ fileId: UUID) -> UUID? { lock.withLock { ids[fileId] } }
}

extension LifelogImport {
    /// An item's key: the kind and the id the exporting account gave it, after that account's id.
    static func key(_ kind: String, _ id: UUID) -> String { "\(kind):\(id.uuidString.lowercased())" }

    /// The lane, the batch kind and the steps of one line; nil for a line not imported. Over 60
    /// lines: one case per kind of line.
    mutating func items(_ line: LifelogImportLine, source: String) -> (String, String, [ImportStep])? {
        let owner = self.owner, service = self.service
        let prefix = "lifelog:\(source):"
        func key(_ kind: String, _ id: UUID) -> String { prefix + Self.key(kind, id) }
        switch line {
        case .header, .end, .notCarried, .healthSample, .sleepSegment, .workout:
            return nil
        case .profile(let profile):
            return ("account", "profile", [service.profileStep(owner, key: prefix + "profile", profile)])
        case .reminderSettings(let morning, let evening, let kinds):
            return ("account", "profile", [service.reminderSettingsStep(owner, key: prefix + "reminder_settings", morning: morning,
                                                                        evening: evening, kinds: kinds)])
        case .sourcePriority(let order):
            return ("health-settings", "health-settings", [service.sourcePriorityStep(owner, key: prefix + "source_priority", order)])
        case .habit(let habit):
            if habit.archived { deferred.append(ImportItem(place: ImportPlace(line: lineNumber), lane: "habit-\(habit.id)",
                                                           steps: [service.habitArchive(owner, habitKey: key("habit", habit.id))])) }
            return ("habits", "habit", service.habitSteps(owner, habitKey: key("habit", habit.id), habit.definition,
                                                                     later: habit.laterSchedules))
        case .habitLog(let habitId, let date, let value):
            return ("habit-\(habitId)", "habit_log", [service.logStep(owner, habitKey: key("habit", habitId), date: date, value: value)])
        case .freeze(let id, let habitId, let freeze):
            return ("habit-\(habitId)", "freeze", [service.freezeStep(owner, key: key("freeze", id), habitKey: key("habit", habitId), freeze)])
        case .task(let task):
            let taskKey = key("task", task.id)
            // The completion that created this repeat runs now, not at its own task's line, so the
            // copy's tasks are created in the file's order.
            let completion = memory.completions.removeValue(forKey: task.id)
            let repeatOf = memory.createdBy[task.id].map { key("task", $0) }
            var steps = completion.map { [$0] } ?? []
            steps += service.taskSteps(owner, key: taskKey, task, repeatOf: repeatOf, completeNow: !task.completed || task.nextTaskId == nil)
            if task.completed, let next = task.nextTaskId {
                memory.createdBy[next] = task.id
                memory.completions[next] = service.taskCompletion(owner, key: taskKey, repeatOf: repeatOf)
            }
            return ("tasks", "task", steps)
        case .category(let category):
            let categoryKey = key("finance_category", category.id)
            let name = "\(category.kind.rawValue):\(category.name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())"
            // A name an earlier category of this file holds (one archived since, or to be):
            // created under another name, given its own once the archiving is done.
            let taken = !memory.categoryNames.insert(name).inserted
            let temporary = taken ? "\(category.name.prefix(88)) (\(category.id.uuidString.prefix(8).lowercased()))" : nil
            memory.fileCategories.insert(service.id(owner, categoryKey, "category"))
            if category.archived {
                deferred.append(ImportItem(place: ImportPlace(line: lineNumber), lane: "categories",
                                           steps: [service.categoryArchive(owner, key: categoryKey, fileId: category.id, categories: memory.categories)]))
            }
            if taken {
                deferred.append(ImportItem(place: ImportPlace(line: lineNumber), lane: "categories",
                                           steps: [service.categoryRename(owner, key: categoryKey, to: category.name)]))
            }
            return ("categories", "finance_category",
                    [service.categoryStep(owner, key: categoryKey, category, temporaryName: temporary, fileCategories: memory.fileCategories,
                                          categories: memory.categories)])
        case .budget(let budget):
            return ("categories", "budget", [service.budgetStep(owner, key: key("budget", budget.categoryId) + "/\(budget.fromMonth)",
                                                                categoryKey: key("finance_category", budget.categoryId), budget,
                                                                categories: memory.categories)])
        case .transaction(let transaction):
            // Transactions of one day in the file's order (they list by date, then as entered); days side by side.
            return ("transactions-\(transaction.date)", "transaction",
                    [service.transactionStep(owner, key: key("transaction", transaction.id), transaction,
                                             categoryKey: transaction.categoryId.map { key("finance_category", $0) }, categories: memory.categories)])
        case .savingsGoal(let goal):
            return ("goals", "savings_goal", [service.goalStep(owner, key: key("savings_goal", goal.id), goal)])
        case .plan(let plan):
            let current = memory.currentPlan[plan.goalId]
            if case .set = plan.change { memory.currentPlan[plan.goalId] = plan.change }
            return ("goal-\(plan.goalId)", "plan", [service.planStep(owner, key: key("plan", plan.goalId) + "/\(plan.seq)",
                                                                     goalKey: key("savings_goal", plan.goalId), plan.change, current: current)])
        case .savingsMovement(let movement):
            return ("goal-\(movement.goalId)", "savings_movement",
                    [service.movementStep(owner, key: key("savings_movement", movement.id), goalKey: key("savings_goal", movement.goalId), movement)])
        case .manualValue(let metric, let date, let value):
            return ("health-settings", "manual_value", [service.manualStep(owner, key: prefix + "manual:\(metric.rawValue):\(date)",
                                                                           metric: metric, date: date, value: value)])
        case .checkIn(let date, let feeling, let note):
            return ("checkins", "checkin", [service.checkInStep(owner, key: prefix + "checkin:\(date)", date: date, feeling: feeling, note: note)])
        }
    }
}
