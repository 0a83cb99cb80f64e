import Domain
import Foundation
import Testing

/// When a task's request is read, then typed input, or every wrong field in one answer; and what
/// needs the stored task stays the decider's.
@Suite struct TaskDraftTests {
    let taskId = UUID()
    let now = DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: LocalDate(year: 2026, month: 3, day: 10) ?? LocalDate(daysSinceEpoch: 0))

    @Test func aGoodTaskReadsAsTypes() {
        Reading(TaskDefinition.self, TaskDraft(title: " Rent ", notes: "flat", priority: 3, dueDate: "2026-01-31", dueTime: "09:00",
                                               repeat: TaskRepeat(every: .month)))
            .then(TaskDefinition(title: "Rent", notes: "flat", priority: 3, dueDate: LocalDate(year: 2026, month: 1, day: 31),
                                 dueTime: LocalTime(hour: 9, minute: 0), repeat: TaskRepeat(every: .month)))
        Reading(TaskDefinition.self, TaskDraft(title: "Call")).then(TaskDefinition(title: "Call", priority: 2))
    }

    @Test func aBadTaskNamesEveryWrongField() {
        Reading(TaskDefinition.self, TaskDraft(title: nil, priority: 9)).thenErrors([FieldError("title", "is required")])
        Reading(TaskDefinition.self, TaskDraft(title: "", notes: String(repeating: "n", count: 10_001), priority: 0, dueTime: "25:00",
                                               repeat: TaskRepeat(every: .day, interval: 0)))
            .thenErrors([FieldError("title", "must be 1 to 200 characters"), FieldError("priority", "must be 1 (low), 2 or 3 (high)"),
                         FieldError("repeat.interval", "must be from 1 to 365"),
                         FieldError("repeat", "a repeating task needs a due_date to anchor it"),
                         FieldError("due_time", LocalTime.inputRule), FieldError("due_time", "needs a due_date"),
                         FieldError("notes", "must be at most 10000 characters")])
        Reading(TaskDefinition.self, TaskDraft(title: "Far", dueDate: "0001-01-01")).thenErrors([FieldError("due_date", LocalDate.inputRule)])
    }

    @Test func aChangeReadsAsTypesOrNamesEveryWrongField() {
        Reading(TaskChange.self, TaskChangeDraft(title: " Rent ", notes: .clear, dueDate: .set("2026-02-01"), dueTime: .set("08:15")))
            .then(TaskChange(title: "Rent", notes: .clear, dueDate: .set(LocalDate(daysSinceEpoch: 20_485)), dueTime: .set(LocalTime(hour: 8, minute: 15))))
        Reading(TaskChange.self, TaskChangeDraft(priority: 4, dueDate: .set("2026-02-30"), dueTime: .set("8:15")))
            .thenErrors([FieldError("priority", "must be 1 (low), 2 or 3 (high)"), FieldError("due_date", LocalDate.inputRule),
                         FieldError("due_time", LocalTime.inputRule)])
    }

    @Test func aTimeLeftWithoutADateIsTheDecidersToRefuse() {
        let created = TaskEvent.created(.init(taskId: taskId, seriesId: taskId, title: "Call", notes: nil, priority: 2, dueDate: nil, dueTime: nil,
                                              repeat: nil, anchorDate: nil, occurrence: 0))
        Given(TaskDecider.self, [created]).thenThrows(.change(taskId: taskId, TaskChange(dueTime: .set(LocalTime(hour: 8, minute: 0)))), at: now,
                                                      ValidationFailure("due_time", "needs a due_date"))
    }
}
