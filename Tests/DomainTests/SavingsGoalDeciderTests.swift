import Domain
import Foundation
import Testing

/// Given events, when a command, then events (or an error): who may do what to a goal, and
/// what a movement must be.
@Suite struct SavingsGoalDeciderTests {
    let goalId = UUID(), owner = UUID(), member = UUID(), stranger = UUID()
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_750_000_000), today: dayOf("2025-06-15")) }

    func decide(_ events: [any DomainEvent], by actor: UUID, _ action: SavingsGoalCommand.Action) throws -> [any DomainEvent] {
        try SavingsGoalDecider.decide(SavingsGoalDecider.fold(events), SavingsGoalCommand(actor: actor, action), now)
    }

    /// A goal in EUR with a monthly plan of 100.00 on the 10th from 2025-01, shared with `member`.
    func history() throws -> [any DomainEvent] {
        var events = try decide([], by: owner, .create(id: goalId, SavingsGoalDraft(name: " Trip ", currency: "EUR", targetAmount: "1200")))
        events += try decide(events, by: owner, .setPlan(SavingsPlanDraft(amount: "100.00", anchorDay: .day(10), startMonth: "2025-01")))
        events += try decide(events, by: owner, .addMember(userId: member))
        return events
    }

    func deposit(_ amount: String, _ date: String, kind: String = "deposit", currency: String? = nil, occurrence: String? = nil) -> SavingsMovementDraft {
        SavingsMovementDraft(kind: kind, amount: amount, currency: currency, date: date, occurrence: occurrence)
    }

    func failure(_ body: () throws -> [any DomainEvent]) -> (any Error)? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test func aMemberDepositsButMayNotEditTheGoalItsPlanOrItsMembers() throws {
        let events = try history()
        #expect(SavingsGoalDecider.fold(events)?.name == "Trip")
        let added = try decide(events, by: member, .addMovement(id: UUID(), deposit("50.00", "2025-02-01")))
        #expect((added.first as? SavingsEvent.MovementAdded)?.actorId == member)
        for action: SavingsGoalCommand.Action in [.change(SavingsGoalChange(name: "Mine")), .delete, .endPlan, .removeMember(userId: member),
                                                   .addMember(userId: UUID()),
                                                   .setPlan(SavingsPlanDraft(amount: "1", anchorDay: .last, startMonth: "2025-01"))] {
            #expect(failure { try decide(events, by: member, action) } as? ResourceError == .forbidden("Only the goal's owner may change it, its plan or its members."))
            #expect(failure { try decide(events, by: stranger, action) } as? ResourceError == .notFound)
        }
        #expect(failure { try decide(events, by: stranger, .addMovement(id: UUID(), deposit("1", "2025-02-01"))) } as? ResourceError == .notFound)
        // Removed, the member is a stranger again.
        let removed = events + (try decide(events, by: owner, .removeMember(userId: member)))
        #expect(failure { try decide(removed, by: member, .addMovement(id: UUID(), deposit("1", "2025-02-01"))) } as? ResourceError == .notFound)
    }

    @Test func aMemberDeletesOnlyTheirOwnTransactions() throws {
        var events = try history()
        let mine = UUID(), owners = UUID()
        events += try decide(events, by: member, .addMovement(id: mine, deposit("10", "2025-02-01")))
        events += try decide(events, by: owner, .addMovement(id: owners, deposit("10", "2025-02-01")))
        #expect(failure { try decide(events, by: member, .deleteMovement(id: owners)) } as? ResourceError
                == .forbidden("Members may delete only the transactions they entered."))
        #expect(try decide(events, by: member, .deleteMovement(id: mine)).count == 1)
        #expect(try decide(events, by: owner, .deleteMovement(id: mine)).count == 1)
    }

    @Test func aWithdrawalLargerThanTheBalanceOnItsDateIsRefused() throws {
        var events = try history()
        let first = UUID()
        events += try decide(events, by: owner, .addMovement(id: first, deposit("100.00", "2025-03-01")))
        let early = failure { try decide(events, by: owner, .addMovement(id: UUID(), deposit("50", "2025-02-28", kind: "withdrawal"))) }
        #expect((early as? ValidationFailure)?.errors.map(\.field) == ["amount"])
        let withdrawal = UUID()
        events += try decide(events, by: owner, .addMovement(id: withdrawal, deposit("100", "2025-03-02", kind: "withdrawal")))
        // A back-dated deposit's deletion would leave that withdrawal above the balance.
        #expect(failure { try decide(events, by: owner, .deleteMovement(id: first)) } is ResourceError)
        #expect(try decide(events, by: owner, .deleteMovement(id: withdrawal)).count == 1)
    }

    @Test func movementsAreCheckedFieldByField() throws {
        let events = try history()
        func fields(_ draft: SavingsMovementDraft) -> [String]? {
            (failure { try decide(events, by: owner, .addMovement(id: UUID(), draft)) } as? ValidationFailure)?.errors.map(\.field)
        }
        #expect(fields(deposit("10.00", "2025-02-01", currency: "USD")) == ["currency"])
        #expect(fields(deposit("10.005", "2025-02-01")) == ["amount"])
        #expect(fields(deposit("0", "2025-02-01")) == ["amount"])
        #expect(fields(deposit("-5", "2025-02-01")) == ["amount"])
        #expect(fields(deposit("1e3", "2025-02-01")) == ["amount"])
        #expect(fields(deposit("10", "2025-06-16")) == ["date"])
        #expect(fields(deposit("10", "2025-02-01", occurrence: "2025-02-11")) == ["occurrence"])
        #expect(fields(deposit("10", "2025-02-01", kind: "gift")) == ["kind"])
        #expect(fields(deposit("10", "2025-02-01", currency: "EUR", occurrence: "2025-02-10")) == nil)
    }

    @Test func aPlanSetAgainUnchangedOrEndedTwiceDecidesNothing() throws {
        var events = try history()
        #expect(try decide(events, by: owner, .setPlan(SavingsPlanDraft(amount: "100", anchorDay: .day(10), startMonth: "2025-01"))).isEmpty)
        let badPlan = failure { try decide(events, by: owner, .setPlan(SavingsPlanDraft(amount: "1", anchorDay: .day(32), everyMonths: 13,
                                                                                        startMonth: "2025-13"))) }
        #expect((badPlan as? ValidationFailure)?.errors.map(\.field).sorted() == ["anchor_day", "every_months", "start_month"])
        events += try decide(events, by: owner, .endPlan)
        #expect(try decide(events, by: owner, .endPlan).isEmpty)
        #expect(try decide(events, by: owner, .addMember(userId: member)).isEmpty)
        #expect((failure { try decide(events, by: owner, .addMember(userId: owner)) } as? ValidationFailure)?.errors.map(\.field) == ["email"])
    }

    /// Sums over a goal must never reach Int64's limit (Swift stops the process there): a goal's
    /// deposits are bounded, so the 101st deposit of 12 digits is refused, naming the amount.
    @Test func aGoalsDepositsStayFarBelowWhatSumsCanHold() throws {
        var events = try history()
        for _ in 0..<100 { events += try decide(events, by: owner, .addMovement(id: UUID(), deposit("999999999999.99", "2025-05-03"))) }
        let refused = failure { try decide(events, by: owner, .addMovement(id: UUID(), deposit("999999999999.99", "2025-05-03"))) }
        #expect((refused as? ValidationFailure)?.errors.map(\.field) == ["amount"])
        #expect(SavingsGoalDecider.fold(events)?.balance(through: dayOf("2025-06-15")) == 9_999_999_999_999_900)
    }
}
