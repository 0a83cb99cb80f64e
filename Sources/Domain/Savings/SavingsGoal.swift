import Foundation

/// A savings goal as its rules see it: the goal, its plan changes, its members and its
/// movements, all in the goal's one stream, so a withdrawal's balance check and the allocation
/// decide on one consistent state.
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
    public var members: Set<UUID>
    public var movements: [Movement]
    /// Events in the goal's stream: the goal's version and ETag.
    public var version: Int64

    public init(id: UUID, ownerId: UUID, name: String, emoji: String?, currency: Currency, targetAmount: Int64?, targetDate: LocalDate?,
                plan: SavingsSchedule = SavingsSchedule([]), members: Set<UUID> = [], movements: [Movement] = [], version: Int64 = 1) {
        self.id = id
        self.ownerId = ownerId
        self.name = name
        self.emoji = emoji
        self.currency = currency
        self.targetAmount = targetAmount
        self.targetDate = targetDate
        self.plan = plan
        self.members = members
        self.movements = movements
        self.version = version
    }

    public enum Role: String, Sendable, Codable { case owner, member }

    /// The caller's role, nil for anyone else (who must get 404).
    public func role(of userId: UUID) -> Role? {
        if userId == ownerId { return .owner }
        return members.contains(userId) ? .member : nil
    }

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
