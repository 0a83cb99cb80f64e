import Domain
import Foundation
import Testing

@Suite struct ReminderPlannerTests {
    static let newYork = TimeZone(identifier: "America/New_York") ?? .gmt
    static let userId = UUID(uuidString: "00000000-0000-4000-8000-000000000001") ?? UUID()
    static let habitId = UUID(uuidString: "00000000-0000-4000-8000-0000000000aa") ?? UUID()

    static func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? .distantPast }
    static func time(_ text: String) -> LocalTime { LocalTime(text) ?? LocalTime(hour: 0, minute: 0) }

    static func user(morning: String = "08:00", evening: String = "20:00", zones: ZoneHistory = ZoneHistory(newYork),
                     kinds: Set<ReminderKind> = Set(ReminderKind.allCases), language: Language = .en) -> ReminderUser {
        ReminderUser(userId: userId, language: language, zones: zones, morning: time(morning), evening: time(evening), kinds: kinds)
    }

    static func habitEveryDay(from: String, through: String, reminder: String? = nil, completed: Bool = false) -> [LocalDate: [ReminderAgenda.HabitDay]] {
        let first = dayOf(from), last = dayOf(through)
        var days: [LocalDate: [ReminderAgenda.HabitDay]] = [:]
        for offset in 0...first.days(until: last) {
            days[first.adding(days: offset)] = [.init(id: habitId, name: "Read", completed: completed, reminderTime: reminder.map(time))]
        }
        return days
    }

    @Test func aMorningTimeInTheSpringForwardGapFiresAtTheTransition() {
        // Given 02:30 on 2024-03-10 in New York, a time that does not exist (02:00 → 03:00 EDT)
        #expect(LocalDueTime.instant(dayOf("2024-03-10"), Self.time("02:30"), in: Self.newYork) == Self.instant("2024-03-10T07:00:00Z"))
        // When the planner plans that day, the digest is due at 03:00 local, and says so: its
        // due_local is the wall time of its instant, never 02:30, which did not exist (issue 26)
        let agenda = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-03-10", through: "2024-03-10"))
        let planned = ReminderPlanner.plan(Self.user(morning: "02:30"), agenda, from: Self.instant("2024-03-10T00:00:00Z"), to: Self.instant("2024-03-11T00:00:00Z"))
        let digest = planned.filter { $0.kind == .morningDigest }
        #expect(digest.map(\.dueAt) == [Self.instant("2024-03-10T07:00:00Z")])
        #expect(digest.map(\.dueLocal) == ["2024-03-10T03:00"])
    }

    @Test func aTimeThatHappensTwiceFiresOnceAtTheFirst() {
        // 01:30 on 2024-11-03 happens at 05:30Z (EDT) and again at 06:30Z (EST)
        #expect(LocalDueTime.instant(dayOf("2024-11-03"), Self.time("01:30"), in: Self.newYork) == Self.instant("2024-11-03T05:30:00Z"))
        let agenda = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-11-02", through: "2024-11-04", reminder: "01:30"))
        let planned = ReminderPlanner.plan(Self.user(), agenda, from: Self.instant("2024-11-03T04:00:00Z"), to: Self.instant("2024-11-03T08:00:00Z"))
        #expect(planned.filter { $0.kind == .habit }.map(\.dueAt) == [Self.instant("2024-11-03T05:30:00Z")])
        #expect(planned.filter { $0.kind == .habit }.map(\.dueLocal) == ["2024-11-03T01:30"])
    }

    @Test func aTravellerGetsTheirMorningInTheZoneInForceAtTheTime() {
        // Given a move from Belgrade to New York at noon UTC on 2024-06-10
        let zones = ZoneHistory([
            .init(since: .distantPast, zone: TimeZone(identifier: "Europe/Belgrade") ?? .gmt),
            .init(since: Self.instant("2024-06-10T12:00:00Z"), zone: Self.newYork),
        ])
        let agenda = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-06-09", through: "2024-06-12"))
        let planned = ReminderPlanner.plan(Self.user(morning: "07:30", zones: zones), agenda,
                                           from: Self.instant("2024-06-10T00:00:00Z"), to: Self.instant("2024-06-12T00:00:00Z"))
        // Then the 10th's 07:30 is Belgrade's (05:30Z), the 11th's is New York's (11:30Z)
        #expect(planned.filter { $0.kind == .morningDigest }.map(\.dueAt) == [Self.instant("2024-06-10T05:30:00Z"), Self.instant("2024-06-11T11:30:00Z")])
    }

    @Test func afterThreeDaysDownOnlyTodaysDigestIsSentAndTheOthersAreSkipped() {
        let agenda = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-05-01", through: "2024-05-05"))
        let planned = ReminderPlanner.plan(Self.user(kinds: [.morningDigest]), agenda,
                                           from: Self.instant("2024-05-01T13:00:00Z"), to: Self.instant("2024-05-04T13:00:00Z"))
        #expect(planned.map(\.dueLocal) == ["2024-05-02T08:00", "2024-05-03T08:00", "2024-05-04T08:00"])
        let (send, skipped) = ReminderPlanner.collapse(planned)
        #expect(send.map(\.dueLocal) == ["2024-05-04T08:00"])
        #expect(skipped.map(\.dueLocal) == ["2024-05-02T08:00", "2024-05-03T08:00"])
    }

    @Test func onlyUsersWithSomethingInTheWindowArePlanned() {
        // 08:00 in New York is 12:00Z in May: a minute at 13:00Z holds nothing of theirs…
        let minute = (Self.instant("2024-05-01T12:59:00Z"), Self.instant("2024-05-01T13:00:00Z"))
        #expect(!ReminderPlanner.mayFire(Self.user(), times: [], from: minute.0, to: minute.1))
        // …unless a habit or task time falls in it, or the morning does.
        #expect(ReminderPlanner.mayFire(Self.user(), times: [Self.time("09:00")], from: minute.0, to: minute.1))
        #expect(ReminderPlanner.mayFire(Self.user(morning: "09:00"), times: [], from: minute.0, to: minute.1))
        // A morning time matters only to the kinds that use it.
        #expect(!ReminderPlanner.mayFire(Self.user(morning: "09:00", kinds: [.eveningNudge]), times: [], from: minute.0, to: minute.1))
    }

    @Test func theCollapseKeepsEachUsersOwnLatest() {
        // Two users' digests in one window: each is its user's latest, so both are sent.
        let agenda = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-05-01", through: "2024-05-03"))
        var other = Self.user(kinds: [.morningDigest])
        other.userId = UUID()
        let window = (Self.instant("2024-05-01T13:00:00Z"), Self.instant("2024-05-03T13:00:00Z"))
        let planned = ReminderPlanner.plan(Self.user(kinds: [.morningDigest]), agenda, from: window.0, to: window.1)
            + ReminderPlanner.plan(other, agenda, from: window.0, to: window.1)
        let (send, skipped) = ReminderPlanner.collapse(planned)
        #expect(Set(send.map(\.userId)) == [Self.userId, other.userId])
        #expect(send.map(\.dueLocal) == ["2024-05-03T08:00", "2024-05-03T08:00"])
        #expect(skipped.count == 2)
    }

    @Test func keysAreTheSameWhenTheSameWindowIsPlannedTwice() {
        let agenda = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-05-01", through: "2024-05-02"))
        let window = (Self.instant("2024-05-01T00:00:00Z"), Self.instant("2024-05-03T00:00:00Z"))
        let first = ReminderPlanner.plan(Self.user(), agenda, from: window.0, to: window.1)
        #expect(!first.isEmpty)
        #expect(first.map(\.key) == ReminderPlanner.plan(Self.user(), agenda, from: window.0, to: window.1).map(\.key))
        #expect(first.first?.key == "00000000-0000-4000-8000-000000000001/morning_digest/digest/2024-05-01T08:00")
    }

    @Test func nothingDueMeansNoDigestAndAllDoneMeansNoNudge() {
        let done = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-05-01", through: "2024-05-01", completed: true))
        let planned = ReminderPlanner.plan(Self.user(), done, from: Self.instant("2024-05-01T00:00:00Z"), to: Self.instant("2024-05-02T06:00:00Z"))
        #expect(planned.isEmpty)
        let open = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-05-01", through: "2024-05-01"))
        let nudges = ReminderPlanner.plan(Self.user(), open, from: Self.instant("2024-05-01T00:00:00Z"), to: Self.instant("2024-05-02T06:00:00Z"))
        #expect(nudges.map(\.kind) == [.morningDigest, .eveningNudge])
        #expect(nudges.last?.body == "Still to do today: Read")
    }

    @Test func aTaskWithATimeIsRemindedAtItAndADateOnlyTaskGoesInTheDigest() {
        let timed = UUID(), dated = UUID(), late = UUID()
        let agenda = ReminderAgenda(tasks: [
            .init(id: timed, title: "Call the bank", dueDate: dayOf("2024-05-01"), dueTime: Self.time("14:15")),
            .init(id: dated, title: "Pay rent", dueDate: dayOf("2024-05-01"), dueTime: nil),
            .init(id: late, title: "Old", dueDate: dayOf("2024-04-20"), dueTime: nil),
        ])
        let planned = ReminderPlanner.plan(Self.user(), agenda, from: Self.instant("2024-05-01T04:00:00Z"), to: Self.instant("2024-05-02T03:00:00Z"))
        #expect(planned.map(\.kind) == [.morningDigest, .taskDue])
        #expect(planned[0].body == "Tasks due: 1 · Overdue tasks: 1")
        #expect(planned[0].data["task_ids"] == .list([dated, late].map { $0.uuidString.lowercased() }))
        #expect(planned[1].dueLocal == "2024-05-01T14:15")
        #expect(planned[1].title == "Task due: Call the bank")
    }

    @Test func paymentsAreRemindedFiveDaysOneDayBeforeAndOnTheDueDate() throws {
        // An occurrence anchored on the 31st in a 30-day month is due on the 30th
        let plan = SavingsPlan(amount: 10_000, anchorDay: .day(31), everyMonths: 1, startMonth: monthOf("2024-06"))
        let due = try #require(SavingsSchedule([.set(plan)]).occurrences(from: dayOf("2024-06-01"), through: dayOf("2024-06-30")).last).dueDate
        #expect(due == dayOf("2024-06-30"))
        let eur = try #require(Currency("EUR"))
        let goal = UUID()
        let agenda = ReminderAgenda(payments: [.init(goalId: goal, goalName: "Trip", dueDate: due, remaining: Money(minorUnits: 10_000, currency: eur))])
        let planned = ReminderPlanner.plan(Self.user(), agenda, from: Self.instant("2024-06-20T00:00:00Z"), to: Self.instant("2024-07-02T00:00:00Z"))
        #expect(planned.map(\.dueLocal) == ["2024-06-25T08:00", "2024-06-29T08:00", "2024-06-30T08:00"])
        #expect(planned.map(\.body) == ["100.00 EUR due on 2024-06-30, in 5 days", "100.00 EUR due on 2024-06-30, in 1 day", "100.00 EUR due today"])
        #expect(planned.first?.data["amount"] == .text("100.00"))
        // Switched off, none
        #expect(ReminderPlanner.plan(Self.user(kinds: [.morningDigest]), agenda, from: Self.instant("2024-06-20T00:00:00Z"), to: Self.instant("2024-07-02T00:00:00Z")).isEmpty)
    }

    @Test func aMembersSharedGoalIsRemindedOnlyWhenTheyAsked() throws {
        let eur = try #require(Currency("EUR"))
        let shared = ReminderAgenda(payments: [.init(goalId: UUID(), goalName: "Flat", dueDate: dayOf("2024-06-30"),
                                                     remaining: Money(minorUnits: 5_000, currency: eur), owned: false)])
        let window = (Self.instant("2024-06-29T00:00:00Z"), Self.instant("2024-07-02T00:00:00Z"))
        // Every kind a new account starts with: none for a goal someone else pays.
        #expect(ReminderPlanner.plan(Self.user(kinds: Set(ReminderKind.defaults)), shared, from: window.0, to: window.1).isEmpty)
        #expect(ReminderPlanner.overdue(Self.user(), shared, from: window.0, to: window.1).isEmpty)
        let asked = ReminderPlanner.plan(Self.user(kinds: [.sharedSavingsPaymentDue]), shared, from: window.0, to: window.1)
        #expect(asked.map(\.kind) == [.sharedSavingsPaymentDue, .sharedSavingsPaymentDue])
        #expect(asked.map(\.dueLocal) == ["2024-06-29T08:00", "2024-06-30T08:00"])
    }

    @Test func textsAreWrittenInTheUsersLanguageWithEveryPlaceholderFilled() {
        let agenda = ReminderAgenda(habits: Self.habitEveryDay(from: "2024-05-01", through: "2024-05-01", reminder: "12:00"))
        var bodies: [Language: [String]] = [:]
        for language in [Language.en, .ru, .sr] {
            let planned = ReminderPlanner.plan(Self.user(language: language), agenda, from: Self.instant("2024-05-01T00:00:00Z"), to: Self.instant("2024-05-02T06:00:00Z"))
            #expect(planned.count == 3)
            let words = planned.flatMap { [$0.title, $0.body] }
            #expect(words.allSatisfy { !$0.contains("{") && !$0.isEmpty })
            bodies[language] = words
        }
        #expect(bodies[.ru]?.first == "Ваш день")
        #expect(bodies[.sr]?.first == "Vaš dan")
        #expect(Set([bodies[.en], bodies[.ru], bodies[.sr]]).count == 3)
    }
}
