import Domain
import Foundation
import Testing

/// Given events, when a command, then events (or an error): the rules of every area, without a
/// database.
@Suite struct HabitDeciderTests {
    let habitId = UUID()
    let today = LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0)
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: today) }

    func created(_ kind: HabitEvent.Kind = .boolean, target: Decimal? = nil) -> HabitEvent.Created {
        HabitEvent.Created(habitId: habitId, name: "Read", kind: kind, target: target, schedule: .daily, startDate: today.adding(days: -30))
    }

    func decide(given events: [any DomainEvent], _ command: HabitCommand) throws -> [any DomainEvent] {
        try HabitDecider.decide(HabitDecider.fold(events), command, now)
    }

    @Test func aBooleanHabitsSecondLogForADateDecidesNothing() throws {
        let first = try decide(given: [created()], .log(date: nil, value: nil))
        #expect(first.count == 1)
        #expect((first.first as? HabitEvent.Logged)?.date == today)
        #expect(try decide(given: [created()] + first, .log(date: nil, value: nil)).isEmpty)
        #expect(try decide(given: [created()] + first, .log(date: today.description, value: nil)).isEmpty)
    }

    @Test func numericLogsAddUp() throws {
        let logged = HabitEvent.Logged(habitId: habitId, date: today, value: 2)
        let again = try decide(given: [created(.numeric, target: 8), logged], .log(date: nil, value: 3))
        #expect((again.first as? HabitEvent.Logged)?.value == 3)
        #expect(throws: ValidationFailure.self) { try decide(given: [created(.numeric, target: 8)], .log(date: nil, value: nil)) }
    }

    @Test func removingALogThatIsNotThereStoresNothing() throws {
        #expect(try decide(given: [created()], .removeLog(date: today.description)).isEmpty)
        let logged = HabitEvent.Logged(habitId: habitId, date: today, value: 1)
        let removed = try decide(given: [created(), logged], .removeLog(date: today.description))
        #expect((removed.first as? HabitEvent.LogRemoved)?.date == today)
    }

    @Test func theSameFreezeTwiceIsStoredOnceAndFreezesStayInTheHabitsWindow() throws {
        let from = today.adding(days: -3).description, to = today.description
        let first = try decide(given: [created()], .addFreeze(id: UUID(), from: from, to: to, reason: "ill"))
        #expect(first.count == 1)
        #expect(try decide(given: [created()] + first, .addFreeze(id: UUID(), from: from, to: to, reason: "ill")).isEmpty)
        #expect(throws: ValidationFailure.self) { try decide(given: [created()], .addFreeze(id: UUID(), from: "0001-01-01", to: to, reason: nil)) }
        #expect(throws: ValidationFailure.self) { try decide(given: [created()], .addFreeze(id: UUID(), from: from, to: "9999-12-31", reason: nil)) }
    }

    @Test func archivingTwiceAndAnEmptyChangeStoreNothing() throws {
        let archived = try decide(given: [created()], .archive)
        #expect(archived.count == 1)
        #expect(try decide(given: [created()] + archived, .archive).isEmpty)
        #expect(try decide(given: [created()], .change(HabitChange(name: "Read"))).isEmpty)
        #expect(try decide(given: [created()], .change(HabitChange())).isEmpty)
        let renamed = try decide(given: [created()], .change(HabitChange(name: "Read more")))
        #expect((renamed.first as? HabitEvent.Changed)?.name == "Read more")
    }

    @Test func anArchivedHabitCannotBeLoggedAndAnUnknownOneIsNotFound() throws {
        #expect(throws: ValidationFailure.self) { try decide(given: [created(), HabitEvent.Archived(habitId: habitId)], .log(date: nil, value: nil)) }
        #expect(throws: ResourceError.notFound) { try decide(given: [], .log(date: nil, value: nil)) }
        #expect(throws: ResourceError.notFound) { try decide(given: [created()], .removeFreeze(id: UUID())) }
    }

    @Test func futureDatesAndDatesBeforeTheStartAreRefused() throws {
        #expect(throws: ValidationFailure.self) { try decide(given: [created()], .log(date: today.adding(days: 1).description, value: nil)) }
        #expect(throws: ValidationFailure.self) { try decide(given: [created()], .log(date: today.adding(days: -31).description, value: nil)) }
    }
}

@Suite struct TaskDeciderTests {
    let taskId = UUID()
    let now = DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0))

    func monthly() throws -> [any DomainEvent] {
        try TaskDecider.decide(nil, .create(id: taskId, TaskDraft(title: "Rent", dueDate: "2026-01-31", repeat: TaskRepeat(every: .month))), now)
    }

    @Test func aCompletedTaskCannotBeCompletedAgain() throws {
        let given = try monthly()
        let completed = try TaskDecider.decide(TaskDecider.fold(given), .complete(taskId: taskId, nextId: UUID()), now)
        #expect(completed.count == 2)
        let next = try #require(completed.last as? TaskEvent.Created)
        #expect(next.dueDate == LocalDate("2026-02-28"))
        #expect(try TaskDecider.decide(TaskDecider.fold(given + completed), .complete(taskId: taskId, nextId: UUID()), now).isEmpty)
    }

    @Test func uncompletingRemovesTheUntouchedNextOccurrenceOnly() throws {
        let given = try monthly()
        let nextId = UUID()
        let completed = try TaskDecider.decide(TaskDecider.fold(given), .complete(taskId: taskId, nextId: nextId), now)
        let reopened = try TaskDecider.decide(TaskDecider.fold(given + completed), .uncomplete(taskId: taskId), now)
        #expect(reopened.count == 2)
        #expect((reopened.last as? TaskEvent.Deleted)?.taskId == nextId)
        let touched = TaskEvent.Changed(taskId: nextId, title: "Rent!", notes: nil, priority: 2, dueDate: LocalDate("2026-02-28"), dueTime: nil)
        let kept = try TaskDecider.decide(TaskDecider.fold(given + completed + [touched]), .uncomplete(taskId: taskId), now)
        #expect(kept.count == 1)
    }

    @Test func aChangeThatChangesNothingStoresNothing() throws {
        let given = try monthly()
        #expect(try TaskDecider.decide(TaskDecider.fold(given), .change(taskId: taskId, TaskChange(title: "Rent")), now).isEmpty)
        #expect(try TaskDecider.decide(TaskDecider.fold(given), .change(taskId: taskId, TaskChange(priority: 3)), now).count == 1)
        #expect(throws: ValidationFailure.self) {
            try TaskDecider.decide(TaskDecider.fold(given), .change(taskId: taskId, TaskChange(dueDate: .clear)), now)
        }
    }

    @Test func anUnknownTaskIsNotFound() throws {
        #expect(throws: ResourceError.notFound) { try TaskDecider.decide(TaskDecider.fold(try monthly()), .delete(taskId: UUID()), now) }
    }
}

@Suite struct AccountDeciderTests {
    let userId = UUID()
    let now = DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: LocalDate(daysSinceEpoch: 0))

    @Test func aProfileChangeToWhatIsThereStoresNothingAndAnUnknownDeviceIsNotFound() throws {
        let registered = try AccountDecider.decide(nil, .register(userId: userId, email: "a@example.com", password: "long enough pass",
                                                                 name: "A", timezone: "Europe/Belgrade", language: nil, currency: nil), now)
        var same = ProfileChange()
        same.timezone = "Europe/Belgrade"
        #expect(try AccountDecider.decide(AccountDecider.fold(registered), .changeProfile(same), now).isEmpty)
        #expect(throws: ResourceError.notFound) { try AccountDecider.decide(AccountDecider.fold(registered), .revokeDevice(id: UUID()), now) }
        let device = try AccountDecider.decide(AccountDecider.fold(registered), .registerDevice(id: UUID(), name: "Watch", kind: "watch", via: "session"), now)
        #expect(device.count == 1)
    }
}
