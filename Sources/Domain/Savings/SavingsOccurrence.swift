import Foundation

/// An occurrence as of a date: what is due, what is paid, and its status.
public struct SavingsOccurrence: Sendable, Equatable {
    public enum Status: String, Sendable, Codable {
        case paid, partial, upcoming, dueToday = "due_today", overdue

        /// The design system's colour for it.
        public var colorToken: String {
            switch self {
            case .paid: "ds.semantic.positive"
            case .partial, .dueToday: "ds.semantic.warning"
            case .upcoming: "ds.semantic.neutral"
            case .overdue: "ds.semantic.negative"
            }
        }
    }

    public var goalId: UUID
    public var dueDate: LocalDate
    public var amount: Int64
    public var paid: Int64
    public var status: Status
    /// Calendar days from the due date to the as-of date when overdue; 0 otherwise.
    public var daysOverdue: Int

    public var remaining: Int64 { amount - paid }

    public init(goalId: UUID, due: SavingsDue, paid: Int64, asOf: LocalDate) {
        self.goalId = goalId
        dueDate = due.dueDate
        amount = due.amount
        self.paid = paid
        status = Self.status(dueDate: due.dueDate, amount: due.amount, paid: paid, asOf: asOf)
        daysOverdue = status == .overdue ? due.dueDate.days(until: asOf) : 0
    }

    /// `paid` when fully paid; otherwise `overdue` when due before the as-of date (even if partly
    /// paid), `due_today` on the day, `partial` when something is paid, else `upcoming`.
    public static func status(dueDate: LocalDate, amount: Int64, paid: Int64, asOf: LocalDate) -> Status {
        if paid >= amount { return .paid }
        if dueDate < asOf { return .overdue }
        if dueDate == asOf { return .dueToday }
        return paid > 0 ? .partial : .upcoming
    }
}
