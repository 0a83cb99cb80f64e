import Domain
import Foundation
import Testing

/// When a savings request is read, then typed input with what the draft got wrong; the member
/// rule speaks first (a stranger learns nothing, a member is refused), then the draft's errors
/// and the goal's (its currency's digits, its plan, today) in one answer.
@Suite struct SavingsDraftTests {
    let goalId = UUID(), owner = UUID(), member = UUID()
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_750_000_000), today: dayOf("2025-06-15")) }

    /// A goal in JPY with a member (invited, and accepted).
    func goal() throws -> Given<SavingsGoalDecider> {
        let trip = NewSavingsGoal(name: "Trip", currency: Currency("JPY")!)
        var events = try Given(SavingsGoalDecider.self).when(SavingsGoalCommand(actor: owner, .create(id: goalId, trip)), at: now)
        let invitation = UUID()
        let address = Checked(SavingsInvitee(email: "member@example.com"))
        events += try Given(SavingsGoalDecider.self, events).when(SavingsGoalCommand(actor: owner, .invite(id: invitation, address, invitee: member)), at: now)
        events += try Given(SavingsGoalDecider.self, events).when(SavingsGoalCommand(actor: member, .acceptInvitation(id: invitation)), at: now)
        return Given(SavingsGoalDecider.self, events)
    }

    @Test func aNewGoalReadsAsTypesOrNamesEveryWrongField() {
        Reading(NewSavingsGoal.self, SavingsGoalDraft(name: " Trip ", currency: "KWD", targetAmount: "1.5", targetDate: "2026-01-31"))
            .then(NewSavingsGoal(name: "Trip", currency: Currency("KWD")!, targetAmount: 1_500, targetDate: dayOf("2026-01-31")))
        Reading(NewSavingsGoal.self, SavingsGoalDraft(name: "", currency: "JPY", targetAmount: "1.5", targetDate: "1899-01-01"))
            .thenErrors([FieldError("name", "must be 1 to 100 characters"), FieldError("target_amount", "JPY has no minor unit: send whole numbers"),
                         FieldError("target_date", "must be from 2000-01-01 to 2100-12-31")])
        // Without a currency the target's digits cannot be judged: what came before, and the currency.
        Reading(NewSavingsGoal.self, SavingsGoalDraft(name: nil, currency: nil, targetAmount: "x"))
            .thenErrors([FieldError("name", "is required"), FieldError("currency", "is required")])
    }

    @Test func aPlansDigitsAreTheGoalsAndTheMemberRuleComesFirst() throws {
        let bad = SavingsPlanDraft(amount: "100.5", anchorDay: .day(32), startMonth: "2025-01")
        Checking(NewSavingsPlan.self, bad).then(
            NewSavingsPlan(amount: try? DecimalAmount("100.5"), anchorDay: .day(32), everyMonths: 1, startMonth: LocalMonth(year: 2025, month: 1)),
            errors: [FieldError("anchor_day", "must be from 1 to 31 or \"last\"")])
        try goal().thenThrows(SavingsGoalCommand(actor: UUID(), .setPlan(try read(bad))), at: now, ResourceError.notFound)
        try goal().thenThrows(SavingsGoalCommand(actor: member, .setPlan(try read(bad))), at: now,
                        ResourceError.forbidden("Only the goal's owner may change it, its plan or its members."))
        try goal().thenThrows(SavingsGoalCommand(actor: owner, .setPlan(try read(bad))), at: now, ValidationFailure([
            FieldError("amount", "JPY has no minor unit: send whole numbers"), FieldError("anchor_day", "must be from 1 to 31 or \"last\"")]))
    }

    @Test func aMovementNamesTheDraftsAndTheGoalsWrongFieldsTogether() throws {
        let draft = SavingsMovementDraft(kind: "withdrawal", amount: "5.5", currency: "EUR", date: "2025-07-01", note: nil, occurrence: "2025-07-01")
        Checking(NewSavingsMovement.self, draft).then(
            NewSavingsMovement(kind: .withdrawal, amount: try? DecimalAmount("5.5"), currency: "EUR", date: dayOf("2025-07-01")),
            errors: [FieldError("occurrence", "only a deposit pays an occurrence")])
        try goal().thenThrows(SavingsGoalCommand(actor: member, .addMovement(id: UUID(), try read(draft))), at: now, ValidationFailure([
            FieldError("currency", "must be the goal's currency, JPY"), FieldError("amount", "JPY has no minor unit: send whole numbers"),
            FieldError("date", "must not be after today (2025-06-15)"), FieldError("occurrence", "only a deposit pays an occurrence")]))
        Checking(NewSavingsMovement.self, SavingsMovementDraft(kind: nil, amount: nil, date: nil)).then(
            NewSavingsMovement(kind: nil, amount: nil, date: nil),
            errors: [FieldError("kind", "is required"), FieldError("amount", "is required"), FieldError("date", "is required")])
    }

    @Test func anAddressIsTrimmedAndJudgedOnlyForTheOwner() throws {
        Checking(SavingsInvitee.self, SavingsInvitee(email: " Member@Example.com ")).then(SavingsInvitee(email: "Member@Example.com"))
        let bad = try read(SavingsInvitee(email: "not an address")) as Checked<SavingsInvitee>
        try goal().thenThrows(SavingsGoalCommand(actor: member, .invite(id: UUID(), bad, invitee: nil)), at: now,
                        ResourceError.forbidden("Only the goal's owner may change it, its plan or its members."))
        try goal().thenThrows(SavingsGoalCommand(actor: owner, .invite(id: UUID(), bad, invitee: nil)), at: now,
                        ValidationFailure("email", "must be an email address"))
    }
}
