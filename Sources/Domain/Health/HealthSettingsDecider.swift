import Foundation

/// The rules of a user's health settings: manual day values (a coach's correction of a watch
/// glitch, which later syncs do not overwrite) and the order of source kinds.
public enum HealthSettingsDecider: Decider {
    public struct State: Sendable, Equatable {
        public var manual: [String: Double] = [:]
        public var priority = HealthSourcePriority.default
        public var checkIns: [LocalDate: HealthEvent.CheckInRecorded] = [:]

        static func key(_ metric: HealthMetric, _ date: LocalDate) -> String { "\(metric.rawValue)|\(date)" }
    }

    public enum Command: Sendable, Equatable {
        /// A value in the metric's own unit, read at the edge (`ManualValue.read`).
        case setManual(ManualValue)
        case clearManual(metric: HealthMetric, date: LocalDate)
        case setPriority([HealthSourceKind])
        case checkIn(date: LocalDate, feeling: Int, note: String?)
        /// Set a data-quality finding aside, given its status as the audit has it now (the
        /// service reads it, and answers 404 for a finding that is not the user's).
        case acknowledgeFinding(UUID, status: HealthAudit.Status)
    }

    public static let checkInNoteLength = 500

    public static var initial: State { State() }

    public static func decide(_ state: State, _ command: Command, _ now: DecisionTime) throws -> [HealthEvent] {
        switch command {
        case let .setManual(manual):
            guard manual.date <= now.today else { throw ValidationFailure("date", "is in the future") }
            if state.manual[State.key(manual.metric, manual.date)] == manual.value { return [] }
            return [.manualValueSet(.init(metric: manual.metric, date: manual.date, value: manual.value))]
        case let .clearManual(metric, date):
            guard state.manual[State.key(metric, date)] != nil else { throw ResourceError.notFound }
            return [.manualValueCleared(.init(metric: metric, date: date))]
        case let .setPriority(order):
            guard Set(order).count == order.count else { throw ValidationFailure("order", "names a kind twice") }
            guard !order.isEmpty else { throw ValidationFailure("order", "must name at least one source kind") }
            let priority = HealthSourcePriority(order: order)
            return priority == state.priority ? [] : [.sourcePriorityChanged(.init(priority: priority))]
        case let .checkIn(date, feeling, note):
            guard (1...5).contains(feeling) else { throw ValidationFailure("feeling", "must be a whole number from 1 to 5") }
            guard date <= now.today else { throw ValidationFailure("date", "is in the future") }
            guard date >= now.today.adding(days: -366) else { throw ValidationFailure("date", "must be within the last year") }
            let note = note.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
            if let note {
                guard note.count <= checkInNoteLength else { throw ValidationFailure("note", "must be at most \(checkInNoteLength) characters") }
                guard !note.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }) else {
                    throw ValidationFailure("note", "must not contain control characters")
                }
            }
            let recorded = HealthEvent.CheckInRecorded(date: date, feeling: feeling, note: note)
            return state.checkIns[date] == recorded ? [] : [.checkInRecorded(recorded)]
        case let .acknowledgeFinding(id, status):
            switch status {
            case .open: return [.findingAcknowledged(.init(findingId: id))]
            case .acknowledged: return []
            case .resolved: throw ResourceError.conflict("the finding is resolved: its condition cleared")
            }
        }
    }

    public static func evolve(_ state: State, _ event: HealthEvent) -> State {
        var state = state
        switch event {
        case .manualValueSet(let set): state.manual[State.key(set.metric, set.date)] = set.value
        case .manualValueCleared(let cleared): state.manual[State.key(cleared.metric, cleared.date)] = nil
        case .sourcePriorityChanged(let changed): state.priority = changed.priority
        case .checkInRecorded(let checkIn): state.checkIns[checkIn.date] = checkIn
        case .findingAcknowledged: break  // the finding's status lives in the audit's read model
        case .recordsStored, .recordsDeleted: break  // the samples' stream: the ingestion decider's state
        }
        return state
    }
}

/// A manual value for one metric and day, in the metric's own unit: what a client sent in any
/// unit of that metric, converted and checked like any sample's value.
public struct ManualValue: Sendable, Equatable {
    public let metric: HealthMetric
    public let date: LocalDate
    public let value: Double

    /// The sent value read: its unit must be one of the metric's, its value one such a figure can be.
    public static func read(metric: HealthMetric, date: LocalDate, value: Double, unit: String?) -> Result<ManualValue, ValidationFailure> {
        guard let converted = metric.normalized(value, unit: unit) else {
            return .failure(ValidationFailure("unit", "\(unit ?? "") is not a unit of \(metric.rawValue)"))
        }
        guard converted.isFinite, metric.plausibleRange.contains(converted) else {
            return .failure(ValidationFailure("value", "is outside what a \(metric.rawValue) figure can be"))
        }
        return .success(ManualValue(metric: metric, date: date, value: converted))
    }
}
