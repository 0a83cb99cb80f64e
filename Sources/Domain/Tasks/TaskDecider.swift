import Foundation

/// Every rule about changing tasks. The state is nil until the series' first task is created.
public enum TaskDecider: Decider {
    public static let initial: TaskSeries? = nil

    public static func decide(_ state: TaskSeries?, _ command: TaskCommand, _ now: DecisionTime) throws -> [TaskEvent] {
        if case .create(let id, let task) = command {
            guard state == nil else { throw ResourceError.conflict("A task with this id already exists.") }
            return [.created(.init(
                taskId: id, seriesId: id, title: task.title ?? "", notes: task.notes, priority: task.priority ?? 2, dueDate: task.dueDate,
                dueTime: task.dueTime, repeat: task.repeat, anchorDate: task.repeat == nil ? nil : task.dueDate, occurrence: 0))]
        }
        guard let series = state else { throw ResourceError.notFound }
        switch command {
        case .create:
            return []
        case .change(let taskId, let change):
            let task = try series.task(taskId)
            return try changed(task, change, series: series).map { [.changed($0)] } ?? []
        case .complete(let taskId, let nextId):
            let task = try series.task(taskId)
            // A completed task cannot be completed again: the second request decides nothing.
            guard !task.completed else { return [] }
            var next: TaskEvent.Created?
            if let rule = task.repeat, let anchor = series.anchor {
                let (occurrence, due) = rule.next(anchor: anchor, after: task.occurrence, currentDue: task.dueDate)
                next = TaskEvent.Created(
                    taskId: nextId, seriesId: series.seriesId, title: task.title, notes: task.notes, priority: task.priority,
                    dueDate: due, dueTime: task.dueTime, repeat: rule, anchorDate: anchor, occurrence: occurrence)
            }
            let completed = TaskEvent.Completed(taskId: taskId, completedAt: now.instant, nextTaskId: next?.taskId)
            return [.completed(completed)] + (next.map { [.created($0)] } ?? [])
        case .uncomplete(let taskId):
            let task = try series.task(taskId)
            guard task.completed else { return [] }
            var events: [TaskEvent] = [.uncompleted(.init(taskId: taskId))]
            // The occurrence the completion created goes too, unless someone has touched it.
            if let next = task.nextTaskId, series.tasks[next]?.revision == 1 {
                events.append(.deleted(.init(taskId: next)))
            }
            return events
        case .delete(let taskId):
            _ = try series.task(taskId)
            return [.deleted(.init(taskId: taskId))]
        }
    }

    /// The task's fields after the change, whole; nil when nothing would change. The change's
    /// fields were checked when it was read (`TaskChange.validated`).
    static func changed(_ task: TaskSeries.Item, _ change: TaskChange, series: TaskSeries) throws -> TaskEvent.Changed? {
        if change.dueDate.isClear, task.repeat != nil {
            throw ValidationFailure("due_date", "a repeating task keeps a due date; delete it or complete it instead")
        }
        let due = change.dueDate.applied(to: task.dueDate)
        // Clearing the due date clears its time too; a time sent without any date is refused.
        let time = due == nil && change.dueTime.newValue == nil ? nil : change.dueTime.applied(to: task.dueTime)
        if time != nil, due == nil { throw ValidationFailure("due_time", "needs a due_date") }
        // Moving a series' first occurrence moves the series; later ones keep its anchor.
        let reanchor = task.repeat != nil && task.occurrence == 0 && due != series.anchor ? due : nil
        let event = TaskEvent.Changed(
            taskId: task.id, title: change.title ?? task.title, notes: change.notes.applied(to: task.notes),
            priority: change.priority ?? task.priority, dueDate: due, dueTime: time, anchorDate: reanchor)
        let same = event.title == task.title && event.notes == task.notes && event.priority == task.priority
            && event.dueDate == task.dueDate && event.dueTime == task.dueTime && reanchor == nil
        return same ? nil : event
    }

    public static func evolve(_ state: TaskSeries?, _ event: TaskEvent) -> TaskSeries? {
        if case .created(let created) = event {
            var series = state ?? TaskSeries(seriesId: created.seriesId, anchor: created.anchorDate, tasks: [:])
            series.tasks[created.taskId] = .init(
                id: created.taskId, title: created.title, notes: created.notes, priority: created.priority, dueDate: created.dueDate,
                dueTime: created.dueTime, repeat: created.repeat, occurrence: created.occurrence)
            return series
        }
        guard var series = state else { return state }
        func update(_ id: UUID, _ body: (inout TaskSeries.Item) -> Void) {
            guard var task = series.tasks[id] else { return }
            body(&task)
            task.revision += 1
            series.tasks[id] = task
        }
        switch event {
        case .created:
            break
        case .changed(let changed):
            update(changed.taskId) {
                $0.title = changed.title
                $0.notes = changed.notes
                $0.priority = changed.priority
                $0.dueDate = changed.dueDate
                $0.dueTime = changed.dueTime
            }
            if let anchor = changed.anchorDate { series.anchor = anchor }
        case .completed(let completed):
            update(completed.taskId) {
                $0.completed = true
                $0.nextTaskId = completed.nextTaskId
            }
        case .uncompleted(let uncompleted):
            update(uncompleted.taskId) {
                $0.completed = false
                $0.nextTaskId = nil
            }
        case .deleted(let deleted):
            series.tasks[deleted.taskId] = nil
        }
        return series
    }
}

extension TaskSeries {
    func task(_ id: UUID) throws -> Item {
        guard let task = tasks[id] else { throw ResourceError.notFound }
        return task
    }
}
