import Foundation

/// A savings goal as its rules see it: the goal, its plan changes, its members, its invitations
/// and its movements, all in the goal's one stream, so a withdrawal's balance check, the
/// allocation and who may do what decide on one consistent state.
public struct SavingsGoal: Sendable, Equatable {
    public struct Movement: Sendable, Equatable {
        public enum Kind: String, Sendable, Codable { case deposit, withdrawal }
        public var id: UUID
        public var kind: Kind
        public var amount: Int64
        public var date: LocalDate
        public var occurrence: LocalDate?
        public var note: String?
        /// Who entered it: the owner or a member.
        public var actorId: UUID
        /// Entry order within the goal (the stream version of the event that added it).
        public var order: Int64

        public init(id: UUID, kind: Kind, amount: Int64, date: LocalDate, occurrence: LocalDate?, note: String?, actorId: UUID, order: Int64) {
            self.id = id
            self.kind = kind
            self.amount = amount
            self.date = date
            self.occurrence = occurrence
            self.note = note
            self.actorId = actorId
            self.order = order
        }

        /// The movement's effect on the balance.
        public var signed: Int64 { kind == .deposit ? amount : -amount }
    }

    public var id: UUID
    public var ownerId: UUID
    public var name: String
    public var emoji: String?
    public var currency: Currency
    public var targetAmount: Int64?
    public var targetDate: LocalDate?
    public var plan: SavingsSchedule
    /// Accepted members (the owner is not one).
    public var members: Set<UUID>
    /// Invitations not withdrawn nor replaced, in the order they were sent; an accepted one
    /// stays while its invitee is a member.
    public var invitations: [SavingsInvitation]
    public var movements: [Movement]
    /// Events in the goal's stream: the goal's version and ETag.
    public var version: Int64

    public init(id: UUID, ownerId: UUID, name: String, emoji: String?, currency: Currency, targetAmount: Int64?, targetDate: LocalDate?,
                plan: SavingsSchedule = SavingsSchedule([]), members: Set<UUID> = [], invitations: [SavingsInvitation] = [],
                movements: [Movement] = [], version: Int64 = 1) {
        self.id = id
        self.ownerId = ownerId
        self.name = name
        self.emoji = emoji
        self.currency = currency
        self.targetAmount = targetAmount
        self.targetDate = targetDate
        self.plan = plan
        self.members = members
        self.invitations = invitations
        self.movements = movements
        self.version = version
    }

    /// What the caller is to the goal: see the member rule, `role(of:)` and `authorize(_:to:)`, below.
    public enum Role: String, Sendable, Codable { case owner, member }

    /// The deposits as the allocation reads them, up to `asOf` when given.
    public func deposits(through asOf: LocalDate? = nil) -> [SavingsAllocation.Deposit] {
        movements.compactMap { m in
            guard m.kind == .deposit, asOf.map({ m.date <= $0 }) ?? true else { return nil }
            return .init(id: m.id, amount: m.amount, date: m.date, occurrence: m.occurrence, order: m.order)
        }
    }

    /// The balance at the end of `date`: every movement dated on or before it, summed exactly
    /// (128 bits, like every sum of amounts: see `Money`).
    public func balance(through date: LocalDate) -> Int128 {
        movements.filter { $0.date <= date }.map(\.signed).exactSum
    }

    /// True when the balance at the end of every day stays at or above zero.
    public static func neverNegative(_ movements: [Movement]) -> Bool {
        var byDate: [LocalDate: Int128] = [:]
        for m in movements { byDate[m.date, default: 0] += Int128(m.signed) }
        var running: Int128 = 0
        for date in byDate.keys.sorted() {
            running += byDate[date] ?? 0
            if running < 0 { return false }
        }
        return true
    }
}

extension SavingsGoal {
    /// What someone asks to do with a goal, as the member rule judges it.
    public enum Act: Sendable, Equatable {
        /// See the goal, its occurrences, movements and members.
        case read
        case addMovement
        /// Delete a movement entered by `enteredBy`.
        case deleteMovement(enteredBy: UUID)
        /// Take this member off the goal (the member themself: leaving).
        case removeMember(UUID)
        /// Change the goal or its plan, delete it, invite, see or withdraw its invitations.
        case manage
    }

    /// The member rule, the one place it is written: who is what to a goal. The owner is the
    /// owner; an account is a member once it accepted an invitation (or was added before
    /// invitations existed); anyone else, an invitee who has not accepted included, is nothing.
    public static func role(of user: UUID, owner: UUID, isMember: Bool) -> Role? {
        if user == owner { return .owner }
        return isMember ? .member : nil
    }

    /// The caller's role, nil for anyone else (who must get 404).
    public func role(of userId: UUID) -> Role? {
        Self.role(of: userId, owner: ownerId, isMember: members.contains(userId))
    }

    /// And what each may do, the one place too: the owner everything; a member reads, adds
    /// movements, deletes the ones they entered and may leave; anyone else learns nothing of the
    /// goal (404), whatever they ask. Every read and every command of a goal asks here.
    @discardableResult
    public func authorize(_ user: UUID, to act: Act) throws(ResourceError) -> Role {
        guard let role = role(of: user) else { throw .notFound }
        guard role == .member else { return role }
        switch act {
        case .read, .addMovement:
            return role
        case .deleteMovement(let enteredBy):
            guard enteredBy == user else { throw .forbidden("Members may delete only the transactions they entered.") }
            return role
        case .removeMember(let member):
            guard member == user else { throw .forbidden("Only the goal's owner may change it, its plan or its members.") }
            return role
        case .manage:
            throw .forbidden("Only the goal's owner may change it, its plan or its members.")
        }
    }

    /// The invitations whose status at `now` is pending.
    public func pendingInvitations(at now: Date) -> [SavingsInvitation] {
        invitations.filter { $0.status(at: now) == .pending }
    }
}
