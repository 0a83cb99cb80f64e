import Domain
import Foundation
import Testing

/// Given events, when a command, then events (or an error): the rules of every area, without a
/// database.
@Suite struct HabitDeciderTests {
    let habitId = UUID()
    let today = LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0)
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: today) }

    func created(_ kind: HabitEvent.Kind = .boolean, target: Decimal? = nil) -> HabitEvent {
        .created(.init(habitId: habitId, name: "Read", kind: kind, target: target, schedule: .daily, startDate: today.adding(days: -30)))
    }
    func logged(_ value: Decimal = 1, on date: LocalDate? = nil) -> HabitEvent { .logged(.init(habitId: habitId, date: date ?? today, value: value)) }
    func given(_ events: HabitEvent...) -> Given<HabitDecider> { Given(HabitDecider.self, events) }

    @Test func aBooleanHabitsSecondLogForADateDecidesNothing() throws {
        given(created()).then(.log(date: nil, value: nil), at: now, [logged()])
        given(created(), logged()).thenNothing(.log(date: nil, value: nil), at: now)
        given(created(), logged()).thenNothing(.log(date: today, value: nil), at: now)
    }

    @Test func numericLogsAddUp() throws {
        given(created(.numeric, target: 8), logged(2)).then(.log(date: nil, value: 3), at: now, [logged(3)])
        given(created(.numeric, target: 8)).thenThrows(.log(date: nil, value: nil), at: now, ValidationFailure.self)
    }

    @Test func removingALogThatIsNotThereStoresNothing() throws {
        given(created()).thenNothing(.removeLog(date: today), at: now)
        given(created(), logged()).then(.removeLog(date: today), at: now, [.logRemoved(.init(habitId: habitId, date: today))])
    }

    @Test func theSameFreezeTwiceIsStoredOnceAndFreezesStayInTheHabitsWindow() throws {
        let from = today.adding(days: -3), to = today
        let freeze = UUID()
        let added = HabitEvent.freezeAdded(.init(habitId: habitId, freezeId: freeze, from: from, to: to, reason: "ill"))
        given(created()).then(.addFreeze(id: freeze, Habit.Freeze(from: from, to: to, reason: "ill")), at: now, [added])
        given(created(), added).thenNothing(.addFreeze(id: UUID(), Habit.Freeze(from: from, to: to, reason: "ill")), at: now)
        given(created()).thenThrows(.addFreeze(id: UUID(), Habit.Freeze(from: LocalDate(daysSinceEpoch: -719_162), to: to, reason: nil)), at: now, ValidationFailure.self)
        given(created()).thenThrows(.addFreeze(id: UUID(), Habit.Freeze(from: from, to: LocalDate(daysSinceEpoch: 2_932_896), reason: nil)), at: now, ValidationFailure.self)
        given(created(), added).then(.removeFreeze(id: freeze), at: now, [.freezeRemoved(.init(habitId: habitId, freezeId: freeze))])
    }

    @Test func archivingTwiceAndAnEmptyChangeStoreNothing() throws {
        let archived = HabitEvent.archived(.init(habitId: habitId))
        given(created()).then(.archive, at: now, [archived])
        given(created(), archived).thenNothing(.archive, at: now)
        given(created(), archived).then(.restore, at: now, [.restored(.init(habitId: habitId))])
        given(created()).thenNothing(.change(HabitChange(name: "Read")), at: now)
        given(created()).thenNothing(.change(HabitChange()), at: now)
        given(created()).then(.change(HabitChange(name: "Read more")), at: now, [.changed(.init(habitId: habitId, name: "Read more"))])
    }

    @Test func anArchivedHabitCannotBeLoggedAndAnUnknownOneIsNotFound() throws {
        given(created(), .archived(.init(habitId: habitId))).thenThrows(.log(date: nil, value: nil), at: now, ValidationFailure.self)
        given().thenThrows(.log(date: nil, value: nil), at: now, ResourceError.notFound)
        given(created()).thenThrows(.removeFreeze(id: UUID()), at: now, ResourceError.notFound)
    }

    @Test func futureDatesAndDatesBeforeTheStartAreRefused() throws {
        given(created()).thenThrows(.log(date: today.adding(days: 1), value: nil), at: now, ValidationFailure.self)
        given(created()).thenThrows(.log(date: today.adding(days: -31), value: nil), at: now, ValidationFailure.self)
    }
}

@Suite struct TaskDeciderTests {
    let taskId = UUID()
    let now = DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0))
    var created: TaskEvent {
        .created(.init(taskId: taskId, seriesId: taskId, title: "Rent", notes: nil, priority: 2, dueDate: LocalDate("2026-01-31"), dueTime: nil,
                       repeat: TaskRepeat(every: .month), anchorDate: LocalDate("2026-01-31"), occurrence: 0))
    }
    func next(_ id: UUID) -> TaskEvent {
        .created(.init(taskId: id, seriesId: taskId, title: "Rent", notes: nil, priority: 2, dueDate: LocalDate("2026-02-28"), dueTime: nil,
                       repeat: TaskRepeat(every: .month), anchorDate: LocalDate("2026-01-31"), occurrence: 1))
    }
    func completed(next nextId: UUID?) -> TaskEvent { .completed(.init(taskId: taskId, completedAt: now.instant, nextTaskId: nextId)) }

    @Test func aMonthlyTaskOnThe31stIsCreatedAnchoredThere() {
        Given(TaskDecider.self).then(.create(id: taskId, TaskDefinition(title: "Rent", dueDate: LocalDate("2026-01-31"), repeat: TaskRepeat(every: .month))), at: now, [created])
    }

    @Test func aCompletedTaskCannotBeCompletedAgain() throws {
        let nextId = UUID()
        // Completing creates the next occurrence: Jan 31 -> Feb 28 (clamped, from the anchor).
        Given(TaskDecider.self, [created]).then(.complete(taskId: taskId, nextId: nextId), at: now, [completed(next: nextId), next(nextId)])
        Given(TaskDecider.self, [created, completed(next: nextId), next(nextId)]).thenNothing(.complete(taskId: taskId, nextId: UUID()), at: now)
    }

    @Test func uncompletingRemovesTheUntouchedNextOccurrenceOnly() throws {
        let nextId = UUID()
        let history = Given(TaskDecider.self, [created, completed(next: nextId), next(nextId)])
        history.then(.uncomplete(taskId: taskId), at: now, [.uncompleted(.init(taskId: taskId)), .deleted(.init(taskId: nextId))])
        let touched = TaskEvent.changed(.init(taskId: nextId, title: "Rent!", notes: nil, priority: 2, dueDate: LocalDate("2026-02-28"), dueTime: nil))
        history.and([touched]).then(.uncomplete(taskId: taskId), at: now, [.uncompleted(.init(taskId: taskId))])
    }

    @Test func aChangeThatChangesNothingStoresNothing() throws {
        let history = Given(TaskDecider.self, [created])
        history.thenNothing(.change(taskId: taskId, TaskChange(title: "Rent")), at: now)
        history.then(.change(taskId: taskId, TaskChange(priority: 3)), at: now,
                     [.changed(.init(taskId: taskId, title: "Rent", notes: nil, priority: 3, dueDate: LocalDate("2026-01-31"), dueTime: nil))])
        history.thenThrows(.change(taskId: taskId, TaskChange(dueDate: .clear)), at: now, ValidationFailure.self)
    }

    @Test func anUnknownTaskIsNotFound() throws {
        Given(TaskDecider.self, [created]).thenThrows(.delete(taskId: UUID()), at: now, ResourceError.notFound)
        Given(TaskDecider.self, [created]).then(.delete(taskId: taskId), at: now, [.deleted(.init(taskId: taskId))])
    }
}

@Suite struct AccountDeciderTests {
    let userId = UUID()
    let now = DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: LocalDate(daysSinceEpoch: 0))

    @Test func aProfileChangeToWhatIsThereStoresNothingAndAnUnknownDeviceIsNotFound() throws {
        let account = try NewAccount.validated(from: AccountDraft(email: "a@example.com", password: "long enough pass", name: "A",
                                                                  timezone: "Europe/Belgrade")).get()
        let registered = try Given(AccountDecider.self).when(.register(userId: userId, profile: account.profile), at: now)
        guard case .registered(let account)? = registered.first, registered.count == 1 else {
            Issue.record("registration decided \(registered)")
            return
        }
        #expect(account.userId == userId && account.profile.email == "a@example.com")
        let history = Given(AccountDecider.self, registered)
        var same = ProfileChange()
        same.timezone = "Europe/Belgrade"
        history.thenNothing(.changeProfile(same), at: now)
        history.thenThrows(.revokeDevice(id: UUID()), at: now, ResourceError.notFound)
        let device = UUID()
        history.then(.registerDevice(id: device, NewDevice(name: "Watch", kind: .watch), via: "session"), at: now,
                     [.deviceRegistered(.init(userId: userId, deviceId: device, name: "Watch", kind: .watch, via: "session"))])
        history.and([.deviceRegistered(.init(userId: userId, deviceId: device, name: "Watch", kind: .watch, via: "session"))])
            .then(.revokeDevice(id: device), at: now, [.deviceRevoked(.init(userId: userId, deviceId: device))])
    }
}

/// When a device's name and kind are read, then a typed device, or both wrong fields at once.
@Suite struct NewDeviceDraftTests {
    @Test func aDeviceReadsAsTypesOrNamesEveryWrongField() {
        Reading(NewDevice.self, DeviceDraft(name: " Watch ", kind: "watch")).then(NewDevice(name: "Watch", kind: .watch))
        Reading(NewDevice.self, DeviceDraft(name: "W\u{0}", kind: "toaster"))
            .thenErrors([FieldError("name", "must not contain control characters"),
                         FieldError("kind", "must be one of watch, ring, phone, scale, app, automation, other")])
    }
}

/// When a registration is read, then a typed account, or every wrong field at once in the order
/// the decider named them when it read the strings itself.
@Suite struct NewAccountDraftTests {
    @Test func aRegistrationReadsAsTypesOrNamesEveryWrongField() {
        Reading(NewAccount.self, AccountDraft(email: "A@Example.com", password: "long enough pass", name: " A ", timezone: "UTC",
                                              language: "sr", currency: "JPY"))
            .then(NewAccount(email: "A@Example.com", password: "long enough pass", name: " A ", timezone: "UTC", language: .sr,
                             currency: Currency("JPY")))
        Reading(NewAccount.self, AccountDraft(email: "not an address", password: "short", name: " ", timezone: "Mars/Olympus",
                                              language: "de", currency: "eur"))
            .thenErrors([FieldError("language", "must be one of en, ru, sr"), FieldError("email", "must be an email address"),
                         FieldError("name", "must be 1 to 100 characters"),
                         FieldError("timezone", "must be an IANA time zone name such as Europe/Belgrade"),
                         FieldError("currency", "must be an ISO 4217 code such as EUR"),
                         FieldError("password", "must be at least 10 characters")])
    }
}
