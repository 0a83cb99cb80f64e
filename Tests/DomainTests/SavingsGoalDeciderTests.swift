import Domain
import Foundation
import Testing

/// Given events, when a command, then events (or an error): who may do what to a goal, and
/// what a movement must be.
@Suite struct SavingsGoalDeciderTests {
    let goalId = UUID(), owner = UUID(), member = UUID(), stranger = UUID()
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    var now: DecisionTime { DecisionTime(instant: Self.start, today: dayOf("2025-06-15")) }

    func decide(_ events: [SavingsEvent], by actor: UUID, _ action: SavingsGoalCommand.Action, at instant: Date? = nil) throws -> [SavingsEvent] {
        let time = instant.map { DecisionTime(instant: $0, today: now.today) } ?? now
        return try Given(SavingsGoalDecider.self, events).when(SavingsGoalCommand(actor: actor, action), at: time)
    }

    /// A goal in EUR with a monthly plan of 100.00 on the 10th from 2025-01, shared with `member`
    /// (invited, and accepted).
    func history() throws -> [SavingsEvent] {
        var events = try decide([], by: owner, .create(id: goalId, goal(SavingsGoalDraft(name: " Trip ", currency: "EUR", targetAmount: "1200"))))
        events += try decide(events, by: owner, .setPlan(read(SavingsPlanDraft(amount: "100.00", anchorDay: .day(10), startMonth: "2025-01"))))
        let invitation = UUID()
        events += try decide(events, by: owner, invite(id: invitation, email: "Member@example.com", invitee: member))
        events += try decide(events, by: member, .acceptInvitation(id: invitation))
        return events
    }

    func deposit(_ amount: String, _ date: String, kind: String = "deposit", currency: String? = nil, occurrence: String? = nil) -> SavingsMovementDraft {
        SavingsMovementDraft(kind: kind, amount: amount, currency: currency, date: date, occurrence: occurrence)
    }

    /// The commands the API makes of drafts (`read`, in Given.swift, for the others).
    func goal(_ draft: SavingsGoalDraft) throws -> NewSavingsGoal { try NewSavingsGoal.validated(from: draft).get() }
    func invite(id: UUID, email: String, invitee: UUID?) throws -> SavingsGoalCommand.Action {
        .invite(id: id, try read(SavingsInvitee(email: email)), invitee: invitee)
    }

    func failure(_ body: () throws -> [SavingsEvent]) -> (any Error)? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test func aMemberDepositsButMayNotEditTheGoalItsPlanOrItsMembers() throws {
        let events = try history()
        #expect(SavingsGoalDecider.fold(events)?.name == "Trip")
        let movement = UUID()
        let added = try decide(events, by: member, .addMovement(id: movement, read(deposit("50.00", "2025-02-01"))))
        guard case .movementAdded(let added)? = added.first, added.movementId == movement else { Issue.record("\(added)"); return }
        #expect(added.actorId == member && added.amount == 5_000 && added.kind == .deposit && added.date == dayOf("2025-02-01"))
        for action: SavingsGoalCommand.Action in try [.change(read(SavingsGoalChangeDraft(name: "Mine"))), .delete, .endPlan, .removeMember(userId: owner),
                                                   invite(id: UUID(), email: "x@example.com", invitee: UUID()), .withdrawInvitation(id: UUID()),
                                                   .setPlan(read(SavingsPlanDraft(amount: "1", anchorDay: .last, startMonth: "2025-01")))] {
            #expect(failure { try decide(events, by: member, action) } as? ResourceError == .forbidden("Only the goal's owner may change it, its plan or its members."))
            #expect(failure { try decide(events, by: stranger, action) } as? ResourceError == .notFound)
        }
        #expect(failure { try decide(events, by: stranger, .addMovement(id: UUID(), read(deposit("1", "2025-02-01")))) } as? ResourceError == .notFound)
        // Removed, the member is a stranger again.
        let removed = events + (try decide(events, by: owner, .removeMember(userId: member)))
        #expect(failure { try decide(removed, by: member, .addMovement(id: UUID(), read(deposit("1", "2025-02-01")))) } as? ResourceError == .notFound)
    }

    @Test func aMemberDeletesOnlyTheirOwnTransactions() throws {
        var events = try history()
        let mine = UUID(), owners = UUID()
        events += try decide(events, by: member, .addMovement(id: mine, read(deposit("10", "2025-02-01"))))
        events += try decide(events, by: owner, .addMovement(id: owners, read(deposit("10", "2025-02-01"))))
        #expect(failure { try decide(events, by: member, .deleteMovement(id: owners)) } as? ResourceError
                == .forbidden("Members may delete only the transactions they entered."))
        #expect(try decide(events, by: member, .deleteMovement(id: mine)).count == 1)
        #expect(try decide(events, by: owner, .deleteMovement(id: mine)).count == 1)
    }

    @Test func aWithdrawalLargerThanTheBalanceOnItsDateIsRefused() throws {
        var events = try history()
        let first = UUID()
        events += try decide(events, by: owner, .addMovement(id: first, read(deposit("100.00", "2025-03-01"))))
        let early = failure { try decide(events, by: owner, .addMovement(id: UUID(), read(deposit("50", "2025-02-28", kind: "withdrawal")))) }
        #expect((early as? ValidationFailure)?.errors.map(\.field) == ["amount"])
        let withdrawal = UUID()
        events += try decide(events, by: owner, .addMovement(id: withdrawal, read(deposit("100", "2025-03-02", kind: "withdrawal"))))
        // A back-dated deposit's deletion would leave that withdrawal above the balance.
        #expect(failure { try decide(events, by: owner, .deleteMovement(id: first)) } is ResourceError)
        #expect(try decide(events, by: owner, .deleteMovement(id: withdrawal)).count == 1)
    }

    @Test func movementsAreCheckedFieldByField() throws {
        let events = try history()
        func fields(_ draft: SavingsMovementDraft) -> [String]? {
            (failure { try decide(events, by: owner, .addMovement(id: UUID(), read(draft))) } as? ValidationFailure)?.errors.map(\.field)
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
        #expect(try decide(events, by: owner, .setPlan(read(SavingsPlanDraft(amount: "100", anchorDay: .day(10), startMonth: "2025-01")))).isEmpty)
        let badPlan = failure { try decide(events, by: owner, .setPlan(read(SavingsPlanDraft(amount: "1", anchorDay: .day(32), everyMonths: 13,
                                                                                        startMonth: "2025-13")))) }
        #expect((badPlan as? ValidationFailure)?.errors.map(\.field).sorted() == ["anchor_day", "every_months", "start_month"])
        events += try decide(events, by: owner, .endPlan)
        #expect(try decide(events, by: owner, .endPlan).isEmpty)
        #expect((failure { try decide(events, by: owner, invite(id: UUID(), email: "member@example.com", invitee: member)) } as? ResourceError)?
            .status == 409)
        #expect((failure { try decide(events, by: owner, invite(id: UUID(), email: "me@example.com", invitee: owner)) } as? ValidationFailure)?
            .errors.map(\.field) == ["email"])
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
        #expect(try SavingsGoalDecider.decide(goal, SavingsGoalCommand(actor: owner, .addMovement(id: UUID(), read(deposit("999999999999.999", "2025-06-01")))), now)
            .count == 1)
        var withdrawn = goal
        withdrawn.movements += (0..<9_299).map { n in
            SavingsGoal.Movement(id: UUID(), kind: .withdrawal, amount: 999_999_999_999_999, date: dayOf("2025-05-04"), occurrence: nil, note: nil,
                                 actorId: owner, order: Int64(n + 9_302))
        }
        withdrawn.movements.append(.init(id: UUID(), kind: .withdrawal, amount: 1, date: dayOf("2025-05-04"), occurrence: nil, note: nil,
                                         actorId: owner, order: 20_000))
        #expect(withdrawn.balance(through: dayOf("2025-06-15")) == 999_999_999_999_998)
        let refused = failure { try SavingsGoalDecider.decide(withdrawn, SavingsGoalCommand(actor: owner, .addMovement(id: UUID(), read(deposit("999999999999.999", "2025-06-01", kind: "withdrawal")))), now) }
        #expect(try SavingsGoalDecider.decide(withdrawn, SavingsGoalCommand(actor: owner, .addMovement(id: UUID(), read(deposit("999999999999.998", "2025-06-01", kind: "withdrawal")))), now)
            .count == 1)
        #expect((refused as? ValidationFailure)?.errors.map(\.field) == ["amount"])
    }

    // MARK: Invitations

    /// A goal with a pending invitation of `member`, sent at `start`.
    func invited() throws -> (events: [SavingsEvent], invitation: UUID) {
        var events = try decide([], by: owner, .create(id: goalId, goal(SavingsGoalDraft(name: "Flat", currency: "EUR"))))
        let invitation = UUID()
        // Given to the decider as it is, unread: it keeps the address it is given (the edge trims it).
        events += try decide(events, by: owner, .invite(id: invitation, Checked(SavingsInvitee(email: " Member@Example.com")), invitee: member))
        return (events, invitation)
    }

    @Test func anInviteeIsNoMemberUntilTheyAccept() throws {
        let (events, invitation) = try invited()
        guard case .memberInvited(let sent)? = events.last else { Issue.record("no invitation in \(events)"); return }
        #expect(sent.email == " Member@Example.com")  // as typed: what the owner sees
        #expect(sent.expiresAt.timeIntervalSince(sent.invitedAt) == 14 * 86_400)
        let goal = try #require(SavingsGoalDecider.fold(events))
        #expect(goal.role(of: member) == nil)
        #expect(goal.invitations.map { $0.status(at: Self.start) } == [.pending])
        // Until they accept, the invitee is a stranger to the goal: every act is 404.
        for action: SavingsGoalCommand.Action in try [.addMovement(id: UUID(), read(deposit("1", "2025-06-01"))), .change(read(SavingsGoalChangeDraft(name: "Mine"))),
                                                   .removeMember(userId: member), .withdrawInvitation(id: invitation)] {
            #expect(failure { try decide(events, by: member, action) } as? ResourceError == .notFound)
        }
        #expect(throws: ResourceError.notFound) { try goal.authorize(member, to: .read) }
        // Someone else cannot answer it.
        #expect(failure { try decide(events, by: stranger, .acceptInvitation(id: invitation)) } as? ResourceError == .notFound)
        #expect(failure { try decide(events, by: owner, .acceptInvitation(id: invitation)) } as? ResourceError == .notFound)
        // Accepted, a member; accepting again changes nothing.
        let accepted = events + (try decide(events, by: member, .acceptInvitation(id: invitation)))
        let after = try #require(SavingsGoalDecider.fold(accepted))
        #expect(after.role(of: member) == .member)
        #expect(try decide(accepted, by: member, .acceptInvitation(id: invitation)).isEmpty)
        #expect(try decide(accepted, by: member, .addMovement(id: UUID(), read(deposit("1", "2025-06-01")))).count == 1)
        // An accepted invitation is not withdrawn (the member is removed instead), nor declined.
        #expect((failure { try decide(accepted, by: owner, .withdrawInvitation(id: invitation)) } as? ResourceError)?.status == 409)
        #expect((failure { try decide(accepted, by: member, .declineInvitation(id: invitation)) } as? ResourceError)?.status == 409)
    }

    @Test func aDeclinedInvitationCannotBeAcceptedAndTheOwnerMayInviteAgain() throws {
        var (events, invitation) = try invited()
        events += try decide(events, by: member, .declineInvitation(id: invitation))
        #expect(try decide(events, by: member, .declineInvitation(id: invitation)).isEmpty)
        #expect((failure { try decide(events, by: member, .acceptInvitation(id: invitation)) } as? ResourceError)?.status == 409)
        #expect(SavingsGoalDecider.fold(events)?.invitations.map { $0.status(at: Self.start) } == [.declined])
        // Invited again: a new invitation replaces the declined one, and this one is accepted.
        let again = UUID()
        events += try decide(events, by: owner, invite(id: again, email: "member@example.com", invitee: member))
        #expect(SavingsGoalDecider.fold(events)?.invitations.map(\.id) == [again])
        #expect(failure { try decide(events, by: member, .acceptInvitation(id: invitation)) } as? ResourceError == .notFound)
        events += try decide(events, by: member, .acceptInvitation(id: again))
        #expect(SavingsGoalDecider.fold(events)?.role(of: member) == .member)
    }

    @Test func anInvitationExpiresAfterFourteenDays() throws {
        var (events, invitation) = try invited()
        let lastSecond = Self.start.addingTimeInterval(14 * 86_400 - 1), expiry = Self.start.addingTimeInterval(14 * 86_400)
        #expect(try decide(events, by: member, .acceptInvitation(id: invitation), at: lastSecond).count == 1)
        let late = failure { try decide(events, by: member, .acceptInvitation(id: invitation), at: expiry) }
        #expect((late as? ResourceError)?.status == 409)
        #expect((late as? ResourceError)?.detail.contains("expired") == true)
        #expect(SavingsGoalDecider.fold(events)?.invitations.first?.status(at: expiry) == .expired)
        // Declining an expired invitation changes nothing; inviting again replaces it.
        #expect(try decide(events, by: member, .declineInvitation(id: invitation), at: expiry).isEmpty)
        // While pending, inviting again changes nothing (the invitation stands); once expired, it is sent anew.
        #expect(try decide(events, by: owner, invite(id: UUID(), email: "member@example.com", invitee: member), at: lastSecond).isEmpty)
        let again = UUID()
        events += try decide(events, by: owner, invite(id: again, email: "member@example.com", invitee: member), at: expiry)
        let renewed = try #require(SavingsGoalDecider.fold(events)?.invitations.first)
        #expect(renewed.id == again && renewed.status(at: expiry) == .pending && renewed.expiresAt == expiry.addingTimeInterval(14 * 86_400))
    }

    @Test func theOwnerWithdrawsAnInvitationAndTheInviteeCanNoLongerAnswerIt() throws {
        var (events, invitation) = try invited()
        #expect(failure { try decide(events, by: owner, .withdrawInvitation(id: UUID())) } as? ResourceError == .notFound)
        events += try decide(events, by: owner, .withdrawInvitation(id: invitation))
        #expect(SavingsGoalDecider.fold(events)?.invitations.isEmpty == true)
        #expect(failure { try decide(events, by: member, .acceptInvitation(id: invitation)) } as? ResourceError == .notFound)
        #expect(failure { try decide(events, by: member, .declineInvitation(id: invitation)) } as? ResourceError == .notFound)
    }

    @Test func invitationsAreCheckedBeforeAnythingIsSaidOfTheAddress() throws {
        let events = try history()
        // Only the owner hears that no account has the address; a member is refused first, a stranger learns nothing.
        #expect((failure { try decide(events, by: owner, invite(id: UUID(), email: "nobody@example.com", invitee: nil)) } as? ValidationFailure)?
            .errors.map(\.field) == ["email"])
        #expect((failure { try decide(events, by: member, invite(id: UUID(), email: "nobody@example.com", invitee: nil)) } as? ResourceError)?
            .status == 403)
        #expect(failure { try decide(events, by: stranger, invite(id: UUID(), email: "nobody@example.com", invitee: nil)) } as? ResourceError == .notFound)
        #expect((failure { try decide(events, by: owner, invite(id: UUID(), email: "not an address", invitee: nil)) } as? ValidationFailure)?
            .errors.map(\.field) == ["email"])
        // Members and pending invitations together are bounded.
        var crowded = events
        for _ in 0..<(SavingsGoalDecider.maxMembers - 1) {
            crowded += try decide(crowded, by: owner, invite(id: UUID(), email: "x@example.com", invitee: UUID()))
        }
        #expect((failure { try decide(crowded, by: owner, invite(id: UUID(), email: "x@example.com", invitee: UUID())) } as? ValidationFailure)?
            .errors.map(\.field) == ["email"])
    }

    @Test func aMemberLeavesAndTheirAcceptedInvitationGoesWithThem() throws {
        var events = try history()
        #expect((failure { try decide(events, by: member, .removeMember(userId: UUID())) } as? ResourceError)?.status == 403)
        events += try decide(events, by: member, .removeMember(userId: member))
        let goal = try #require(SavingsGoalDecider.fold(events))
        #expect(goal.role(of: member) == nil && goal.invitations.isEmpty)
        // Invited again, they must accept again.
        let again = UUID()
        events += try decide(events, by: owner, invite(id: again, email: "member@example.com", invitee: member))
        #expect(SavingsGoalDecider.fold(events)?.role(of: member) == nil)
    }

    /// Members added before invitations existed stay members (they were added under that rule).
    @Test func aMemberAddedBeforeInvitationsStaysAMember() throws {
        var events = try decide([], by: owner, .create(id: goalId, goal(SavingsGoalDraft(name: "Old", currency: "EUR"))))
        // As the log holds it: read back from its stored JSON.
        events.append(.memberAdded(try EventCoding.decode(SavingsEvent.MemberAdded.self,
                                                          from: #"{"goal_id":"\#(goalId.uuidString)","user_id":"\#(member.uuidString)"}"#)))
        let goal = try #require(SavingsGoalDecider.fold(events))
        #expect(goal.role(of: member) == .member)
        #expect(try decide(events, by: member, .addMovement(id: UUID(), read(deposit("1", "2025-06-01")))).count == 1)
        #expect(try decide(events, by: member, .removeMember(userId: member)).count == 1)
    }

}
