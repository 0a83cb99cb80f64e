import Foundation

// The rules a task's draft alone decides. What needs the stored task (a repeating task keeps a
// due date; a time needs a date once the change is applied) stays with `TaskDecider`.

extension TaskFields: ValidatedInput where Day == LocalDate, Time == LocalTime {
    public static func validated(from draft: TaskDraft) -> Result<TaskDefinition, ValidationFailure> {
        guard let title = draft.title else { return .failure(ValidationFailure("title", "is required")) }
        var errors = FieldErrors()
        errors.add(TaskRules.validationErrors(title: title, priority: draft.priority, recurrence: draft.repeat, hasDueDate: draft.dueDate != nil))
        let due = errors.parse(draft.dueDate, field: "due_date", rule: LocalDate.inputRule, LocalDate.input)
        let time = errors.parse(draft.dueTime, field: "due_time", rule: LocalTime.inputRule, LocalTime.init)
        if draft.dueTime != nil, draft.dueDate == nil { errors.add(FieldError("due_time", "needs a due_date")) }
        errors.add(TaskRules.notesError(draft.notes))
        return errors.result {
            TaskDefinition(title: title.trimmingCharacters(in: .whitespacesAndNewlines), notes: draft.notes, priority: draft.priority ?? 2,
                           dueDate: due, dueTime: time, repeat: draft.repeat)
        }
    }
}

extension TaskChangeFields: ValidatedInput where Day == LocalDate, Time == LocalTime {
    public static func validated(from draft: TaskChangeDraft) -> Result<TaskChange, ValidationFailure> {
        if draft.changesRepeat { return .failure(ValidationFailure("repeat", "cannot be changed; create a new task")) }
        var errors = FieldErrors()
        errors.add(TaskRules.validationErrors(title: draft.title, priority: draft.priority, recurrence: nil, hasDueDate: false))
        let due = errors.parse(draft.dueDate, field: "due_date", rule: LocalDate.inputRule, LocalDate.input)
        let time = errors.parse(draft.dueTime, field: "due_time", rule: LocalTime.inputRule, LocalTime.init)
        errors.add(TaskRules.notesError(draft.notes.newValue))
        return errors.result {
            TaskChange(title: draft.title?.trimmingCharacters(in: .whitespacesAndNewlines), notes: draft.notes, priority: draft.priority,
                       dueDate: due, dueTime: time)
        }
    }
}

extension TaskRules {
    static func notesError(_ notes: String?) -> FieldError? {
        guard let notes, notes.count > 10_000 else { return nil }
        return FieldError("notes", "must be at most 10000 characters")
    }
}
