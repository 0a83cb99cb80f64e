import Domain
import Foundation

// An import's task commands, through `TaskService`. A series' first task is created; completing
// a repeating one creates its repeat (the decider's rule, as in the app), so a later task of
// the series is that repeat, given the file's fields and completed in its turn. A repeating
// task's completion runs at its repeat's line, so the copy creates tasks in the file's order.
extension ImportService {
    /// The account's id of the task `key`: the repeat its predecessor's completion created
    /// (`repeatOf`, that predecessor's key), or the series' first task.
    func taskId(_ owner: UUID, key: String, repeatOf: String?) -> UUID {
        if let repeatOf { id(owner, repeatOf + "/complete", "next-task") } else { id(owner, key, "task") }
    }

    /// The task's own steps: created (a series' first) or given the file's fields (a repeat),
    /// then completed when `completeNow` (a repeating task's completion waits for its repeat's
    /// line: `taskCompletion`).
    func taskSteps(_ owner: UUID, key: String, _ task: LifelogImportLine.TaskLine, repeatOf: String?, completeNow: Bool) -> [ImportStep] {
        let tasks = self.tasks
        let taskId = taskId(owner, key: key, repeatOf: repeatOf)
        var steps: [ImportStep] = []
        if repeatOf != nil {
            let definition = task.definition
            let change = TaskChange(title: definition.title, notes: definition.notes.map { .set($0) } ?? .clear, priority: definition.priority,
                                    dueDate: definition.dueDate.map { .set($0) } ?? .keep, dueTime: definition.dueTime.map { .set($0) } ?? .clear)
            steps.append(ImportStep(key + "/change") { context in
                do {
                    return !(try await tasks.execute(context, seriesOf: taskId, .change(taskId: taskId, change)).appended.isEmpty)
                } catch ResourceError.notFound {
                    throw ImportRefusal("the task it repeats was not imported")
                }
            })
        } else {
            steps.append(ImportStep(key) { context in
                !(try await tasks.execute(context, seriesOf: taskId, .create(id: taskId, task.definition)).appended.isEmpty)
            })
        }
        if task.completed, completeNow { steps.append(taskCompletion(owner, key: key, repeatOf: repeatOf)) }
        return steps
    }

    /// Completes the task `key` (which creates its repeat, for a repeating one).
    func taskCompletion(_ owner: UUID, key: String, repeatOf: String?) -> ImportStep {
        let tasks = self.tasks
        let taskId = taskId(owner, key: key, repeatOf: repeatOf)
        return ImportStep(key + "/complete") { context in
            !(try await tasks.execute(context, seriesOf: taskId, .complete(taskId: taskId, nextId: context.newId("next-task"))).appended.isEmpty)
        }
    }

    /// Removes the repeat that the completion `completeKey` created.
    func taskRemoval(_ owner: UUID, createdBy completeKey: String) -> ImportStep {
        let tasks = self.tasks
        let taskId = id(owner, completeKey, "next-task")
        return ImportStep(completeKey + "/remove-repeat") { context in
            do {
                return !(try await tasks.execute(context, seriesOf: taskId, .delete(taskId: taskId)).appended.isEmpty)
            } catch ResourceError.notFound {
                return false
            }
        }
    }
}
