import Domain
import Foundation
import Testing

/// When a habit's request is read, then typed input, or every wrong field in one answer; and what
/// needs the habit or today stays the decider's.
@Suite struct HabitDraftTests {
    let today = LocalDate(year: 2026, month: 3, day: 10) ?? LocalDate(daysSinceEpoch: 0)
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: today) }

    @Test func aGoodDefinitionReadsAsTypes() {
        Reading(HabitDefinition.self, HabitDraft(name: " Walk ", kind: "numeric", target: 5, unit: "km", schedule: .timesPerWeek(3),
                                                 startDate: "2026-03-01", reminderTime: "07:30"))
            .then(HabitDefinition(name: "Walk", kind: .numeric, target: 5, unit: "km", schedule: .timesPerWeek(3),
                                  startDate: LocalDate(year: 2026, month: 3, day: 1), reminderTime: LocalTime(hour: 7, minute: 30)))
    }

    @Test func aBadDefinitionNamesEveryWrongField() {
        Reading(HabitDefinition.self, HabitDraft(name: " ", kind: "sometimes", unit: String(repeating: "u", count: 33),
                                                 schedule: .timesPerWeek(9), startDate: "2026-02-30", reminderTime: "7:30"))
            .thenErrors([FieldError("name", "must be 1 to 100 characters"), FieldError("kind", "must be boolean or numeric"),
                         FieldError("unit", "must be at most 32 characters"), FieldError("schedule.count", "must be from 1 to 7"),
                         FieldError("start_date", LocalDate.inputRule), FieldError("reminder_time", LocalTime.inputRule)])
        Reading(HabitDefinition.self, HabitDraft(name: "Read", kind: "numeric", schedule: .daily))
            .thenErrors([FieldError("target", "a numeric habit needs a target above 0")])
        Reading(HabitDefinition.self, HabitDraft(name: "Read", kind: "boolean", target: 2, schedule: .daily))
            .thenErrors([FieldError("target", "only numeric habits have a target")])
    }

    @Test func aStartDateOutsideTheWindowIsTheDecidersToRefuse() {
        let definition = HabitDefinition(name: "Read", kind: .boolean, schedule: .daily, startDate: today.adding(days: 400))
        Given(HabitDecider.self).thenThrows(.create(id: UUID(), definition), at: now,
                                            ValidationFailure("start_date", "must be on or before \(today.adding(days: 366)), a year from today"))
    }

    @Test func aChangeReadsAsTypesOrNamesEveryWrongField() throws {
        let json = #"{"name":" Read ","emoji":null,"reminder_time":"21:00","effective_from":"2026-03-01"}"#
        let draft = try JSONDecoder.snakeCase.decode(HabitChangeDraft.self, from: Data(json.utf8))
        Reading(HabitChange.self, draft).then(HabitChange(name: "Read", emoji: .clear, reminderTime: .set(LocalTime(hour: 21, minute: 0)),
                                                          effectiveFrom: LocalDate(year: 2026, month: 3, day: 1)))
        let bad = #"{"name":"","target":0,"reminder_time":"noon","effective_from":"soon","schedule":{"type":"every_n_days","n":1}}"#
        Reading(HabitChange.self, try JSONDecoder.snakeCase.decode(HabitChangeDraft.self, from: Data(bad.utf8)))
            .thenErrors([FieldError("name", "must be 1 to 100 characters"), FieldError("target", "must be from 0.001 to 1000000000"),
                         FieldError("reminder_time", LocalTime.inputRule), FieldError("effective_from", LocalDate.inputRule),
                         FieldError("schedule.n", "must be from 2 to 365")])
    }

    @Test func aFreezeReadsAsTypesOrNamesEveryWrongField() {
        Reading(Habit.Freeze.self, HabitFreezeDraft(from: "2026-03-01", to: "2026-03-05", reason: "ill"))
            .then(Habit.Freeze(from: today.adding(days: -9), to: today.adding(days: -5), reason: "ill"))
        Reading(Habit.Freeze.self, HabitFreezeDraft(from: "2026-03-05", to: "2026-03-01"))
            .thenErrors([FieldError("to", "must not be before from")])
        Reading(Habit.Freeze.self, HabitFreezeDraft(from: "0001-01-01", to: "March", reason: "a\u{0}"))
            .thenErrors([FieldError("from", LocalDate.inputRule), FieldError("to", LocalDate.inputRule),
                         FieldError("reason", "must not contain control characters")])
    }
}

extension JSONDecoder {
    /// The API's key rule, for drafts read in these tests as a client sends them.
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
