import Foundation

/// What the deposits of a goal pay, derived, never stored: a pure function of the plan and the
/// deposits in order of date, then of entry. A deposit starts with the occurrence it names (when
/// the plan has it) or else with the oldest occurrence not fully paid (which is the oldest unpaid
/// one due on or before its date, or when there is none, the next one after it); what is left
/// pays the following occurrences not fully paid in turn, and the rest is a plain deposit.
/// Withdrawals never un-pay an occurrence, so they play no part.
public struct SavingsAllocation: Sendable, Equatable {
    public struct Deposit: Sendable, Equatable {
        public var id: UUID
        public var amount: Int64
        public var date: LocalDate
        public var occurrence: LocalDate?
        /// Entry order within the goal: the second sort key after the date.
        public var order: Int64

        public init(id: UUID, amount: Int64, date: LocalDate, occurrence: LocalDate?, order: Int64) {
            self.id = id
            self.amount = amount
            self.date = date
            self.occurrence = occurrence
            self.order = order
        }
    }

    /// Paid so far, by due date; occurrences absent here have nothing paid.
    public var paid: [LocalDate: Int64]
    /// What each deposit paid, by due date.
    public var byDeposit: [UUID: [LocalDate: Int64]]
    /// The part of the deposits that paid no occurrence (a sum of amounts: 128 bits).
    public var plain: Int128

    public func paid(_ due: LocalDate) -> Int64 { paid[due] ?? 0 }

    /// Allocates `deposits` (any order; sorted here) over `schedule`.
    public init(schedule: SavingsSchedule, deposits: [Deposit]) {
        paid = [:]
        byDeposit = [:]
        plain = 0
        var occurrences = schedule.occurrences
        var known: [SavingsDue] = []
        var index: [LocalDate: Int] = [:]
        var exhausted = false
        /// Makes `known` reach position `i` when the plan has it.
        func reach(_ i: Int) -> Bool {
            while known.count <= i, !exhausted {
                if let next = occurrences.next() {
                    index[next.dueDate] = known.count
                    known.append(next)
                } else {
                    exhausted = true
                }
            }
            return i < known.count
        }
        func reach(_ date: LocalDate) -> Int? {
            while !exhausted, known.last.map({ $0.dueDate < date }) ?? true { _ = reach(known.count) }
            return index[date]
        }
        var oldestUnpaid = 0
        for deposit in deposits.sorted(by: { ($0.date, $0.order) < ($1.date, $1.order) }) {
            var left = deposit.amount
            var position = deposit.occurrence.flatMap(reach) ?? oldestUnpaid
            var paidHere: [LocalDate: Int64] = [:]
            while left > 0, reach(position) {
                let due = known[position]
                let already = paid[due.dueDate] ?? 0
                if already < due.amount {
                    let part = min(left, due.amount - already)
                    paid[due.dueDate] = already + part
                    paidHere[due.dueDate, default: 0] += part
                    left -= part
                }
                position += 1
            }
            while reach(oldestUnpaid), paid[known[oldestUnpaid].dueDate] ?? 0 >= known[oldestUnpaid].amount { oldestUnpaid += 1 }
            plain += Int128(left)
            if !paidHere.isEmpty { byDeposit[deposit.id] = paidHere }
        }
    }
}
