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

    /// Sums over a goal are exact at any size: a goal's deposits may pass Int64's limit
    /// (9.2·10^18 minor units), and its balance is then the sum, not a clamp or a refusal.
    @Test func aGoalsBalancePastInt64IsExact() throws {
        // 9,300 deposits of the largest KWD amount (999999999999.999): 9,299,999,999,999,990,700 minor units.
        let kwd = try #require(Currency("KWD"))
        let deposits = (0..<9_300).map { n in
            SavingsGoal.Movement(id: UUID(), kind: .deposit, amount: 999_999_999_999_999, date: dayOf("2025-05-03"), occurrence: nil, note: nil,
                                 actorId: owner, order: Int64(n + 2))
        }
        let goal = SavingsGoal(id: goalId, ownerId: owner, name: "Vault", emoji: nil, currency: kwd, targetAmount: nil, targetDate: nil,
                               movements: deposits, version: 9_301)
        #expect(goal.balance(through: dayOf("2025-06-15")) == Int128(999_999_999_999_999) * 9_300)
        #expect(Money(minorUnits: SavingsProgress(goal, asOf: dayOf("2025-06-15")).balance, currency: kwd).description == "9299999999999990.700")
        // One more deposit is taken (no bound on a goal's deposits is needed for exact sums), and
        // a withdrawal is checked against the exact balance.
        #expect(try SavingsGoalDecider.decide(goal, SavingsGoalCommand(actor: owner, .addMovement(id: UUID(), deposit("999999999999.999", "2025-06-01"))), now)
            .count == 1)
        var withdrawn = goal
        withdrawn.movements += (0..<9_299).map { n in
            SavingsGoal.Movement(id: UUID(), kind: .withdrawal, amount: 999_999_999_999_999, date: dayOf("2025-05-04"), occurrence: nil, note: nil,
                                 actorId: owner, order: Int64(n + 9_302))
        }
        withdrawn.movements.append(.init(id: UUID(), kind: .withdrawal, amount: 1, date: dayOf("2025-05-04"), occurrence: nil, note: nil,
                                         actorId: owner, order: 20_000))
        #expect(withdrawn.balance(through: dayOf("2025-06-15")) == 999_999_999_999_998)
        let refused = failure { try SavingsGoalDecider.decide(withdrawn, SavingsGoalCommand(actor: owner, .addMovement(id: UUID(), deposit("999999999999.999", "2025-06-01", kind: "withdrawal"))), now) }
        #expect(try SavingsGoalDecider.decide(withdrawn, SavingsGoalCommand(actor: owner, .addMovement(id: UUID(), deposit("999999999999.998", "2025-06-01", kind: "withdrawal"))), now)
            .count == 1)
        #expect((refused as? ValidationFailure)?.errors.map(\.field) == ["amount"])
    }
}
