import Core
import Domain
import Foundation
import Hummingbird
import Projections

/// An amount with its currency, as the overview's lists print them.
struct AmountDTO: Encodable, Sendable {
    var currency: String
    var amount: String
    init(_ money: Money) {
        currency = money.currency.code
        amount = money.description
    }
}

struct SavingsPlanDTO: Encodable, Sendable {
    var amount: String
    var anchorDay: SavingsAnchorDay
    var everyMonths: Int
    var startMonth: String
    var endMonth: String?

    init(_ plan: SavingsPlan, currency: Currency) {
        amount = Money(minorUnits: plan.amount, currency: currency).description
        anchorDay = plan.anchorDay
        everyMonths = plan.everyMonths
        startMonth = plan.startMonth.description
        endMonth = plan.endMonth?.description
    }
}

struct SavingsOccurrenceDTO: Encodable, Sendable {
    var goalId: String
    var goalName: String
    var dueDate: String
    var currency: String
    var amount: String
    var paid: String
    var remaining: String
    var status: SavingsOccurrence.Status
    var colorToken: String
    var daysOverdue: Int

    init(_ occurrence: SavingsOccurrence, goal: SavingsGoal) {
        func text<Units: SignedInteger & FixedWidthInteger>(_ units: Units) -> String { Money(minorUnits: units, currency: goal.currency).description }
        goalId = goal.id.uuidString.lowercased()
        goalName = goal.name
        dueDate = occurrence.dueDate.description
        currency = goal.currency.code
        amount = text(occurrence.amount)
        paid = text(occurrence.paid)
        remaining = text(occurrence.remaining)
        status = occurrence.status
        colorToken = occurrence.status.colorToken
        daysOverdue = occurrence.daysOverdue
    }
}

struct SavingsGoalDTO: ResponseEncodable {
    var id: String
    var name: String
    var emoji: String?
    var currency: String
    var targetAmount: String?
    var targetDate: String?
    var balance: String
    @NullWhenEmpty var progressPercent: String? = nil
    @NullWhenEmpty var monthlyNeeded: String? = nil
    var targetPassed: Bool
    @NullWhenEmpty var nextPayment: SavingsOccurrenceDTO? = nil
    var overdueCount: Int
    var role: SavingsGoal.Role
    var plan: SavingsPlanDTO?
    /// The as-of date of the figures.
    var date: String
    var createdAt: Date
    var version: Int64

    init(_ view: SavingsGoalView) {
        let goal = view.goal
        func text<Units: SignedInteger & FixedWidthInteger>(_ units: Units) -> String { Money(minorUnits: units, currency: goal.currency).description }
        id = goal.id.uuidString.lowercased()
        name = goal.name
        emoji = goal.emoji
        currency = goal.currency.code
        targetAmount = goal.targetAmount.map(text)
        targetDate = goal.targetDate?.description
        balance = text(view.progress.balance)
        progressPercent = view.progress.progressPercent
        monthlyNeeded = view.progress.monthlyNeeded.map(text)
        targetPassed = view.progress.targetPassed
        nextPayment = view.progress.nextPayment.map { SavingsOccurrenceDTO($0, goal: goal) }
        overdueCount = view.progress.overdues.count
        role = view.role
        plan = goal.plan.current.map { SavingsPlanDTO($0, currency: goal.currency) }
        date = view.progress.asOf.description
        createdAt = view.createdAt
        version = goal.version
    }

    enum CodingKeys: String, CodingKey {
        case id, name, emoji, currency, targetAmount, targetDate, balance, progressPercent, monthlyNeeded, targetPassed, nextPayment
        case overdueCount, role, plan, date, createdAt, version
    }

}

struct SavingsMovementDTO: ResponseEncodable {
    struct Payment: Encodable, Sendable {
        var dueDate: String
        var amount: String
    }

    var id: String
    var goalId: String
    var kind: SavingsGoal.Movement.Kind
    var amount: String
    var currency: String
    var date: String
    var occurrence: String?
    var note: String?
    var createdBy: String
    /// The occurrences this deposit pays and how much of each.
    var pays: [Payment]

    init(_ view: SavingsMovementView) {
        let m = view.movement
        id = m.id.uuidString.lowercased()
        goalId = view.goalId.uuidString.lowercased()
        kind = m.kind
        amount = Money(minorUnits: m.amount, currency: view.currency).description
        currency = view.currency.code
        date = m.date.description
        occurrence = m.occurrence?.description
        note = m.note
        createdBy = m.actorId.uuidString.lowercased()
        pays = view.pays.map { Payment(dueDate: $0.dueDate.description, amount: Money(minorUnits: $0.amount, currency: view.currency).description) }
    }
}

struct SavingsMemberDTO: ResponseEncodable {
    var userId: String
    var email: String
    var name: String
    var role: SavingsGoal.Role
    var addedAt: Date

    init(_ view: SavingsMemberView) {
        userId = view.userId.uuidString.lowercased()
        email = view.email
        name = view.name
        role = view.role
        addedAt = view.addedAt
    }
}

/// An invitation as the goal's owner sees it: the address they typed and its status, never
/// who the invitee is.
struct SavingsInvitationDTO: ResponseEncodable {
    var id: String
    var email: String
    var status: SavingsInvitation.Status
    var invitedAt: Date
    var expiresAt: Date

    init(_ view: SavingsInvitationView) {
        id = view.invitation.id.uuidString.lowercased()
        email = view.invitation.email
        status = view.status
        invitedAt = view.invitation.invitedAt
        expiresAt = view.invitation.expiresAt
    }
}

/// An invitation as its invitee sees it: what they need to decide, nothing more of the goal.
struct SavingsReceivedInvitationDTO: ResponseEncodable {
    var id: String
    var goalName: String
    var ownerName: String
    var ownerEmail: String
    var invitedAt: Date
    var expiresAt: Date

    init(_ received: SavingsReceivedInvitation) {
        id = received.invitation.id.uuidString.lowercased()
        goalName = received.goalName
        ownerName = received.ownerName
        ownerEmail = received.ownerEmail
        invitedAt = received.invitation.invitedAt
        expiresAt = received.invitation.expiresAt
    }
}

/// Position in the invitee's invitations, oldest first: when it was sent, then its id.
struct SavingsInvitationCursor: Codable, CursorPosition {
    var invitedAt: Int64
    var id: UUID
    var isPlausible: Bool { (0...4_102_444_800).contains(invitedAt) }
}

struct SavingsOverviewDTO: ResponseEncodable {
    var date: String
    var balances: [AmountDTO]
    var monthlyPaymentDetails: [SavingsOccurrenceDTO]
    var overdues: [SavingsOccurrenceDTO]
    var overdueTotal: [AmountDTO]
    var nextPayments: [SavingsOccurrenceDTO]

    init(_ overview: SavingsOverview) {
        func list(_ pairs: [(SavingsGoalView, SavingsOccurrence)]) -> [SavingsOccurrenceDTO] {
            pairs.map { SavingsOccurrenceDTO($0.1, goal: $0.0.goal) }
        }
        date = overview.asOf.description
        balances = overview.balances.map(AmountDTO.init)
        monthlyPaymentDetails = list(overview.monthlyPaymentDetails)
        overdues = list(overview.overdues)
        overdueTotal = overview.overdueTotal.map(AmountDTO.init)
        nextPayments = list(overview.nextPayments)
    }
}


/// Position in the goals list: creation time, then id.
struct SavingsGoalCursor: Codable, CursorPosition {
    var createdMicros: Int64
    var id: UUID
    var isPlausible: Bool { (0...4_102_444_800_000_000).contains(createdMicros) }
}

/// Position in a goal's movements, newest first: date, then entry order.
struct SavingsMovementCursor: Codable, CursorPosition {
    var date: String
    var order: Int64
    var isPlausible: Bool { LocalDate(date) != nil && order >= 0 }
}
