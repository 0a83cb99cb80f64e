import Foundation

/// Events of a user's health streams, a case each. Samples live in `health-<user>`; the user's
/// manual values and source priority in `health-settings-<user>`, whose commands need none of the
/// samples; check-ins in `health-checkins-<user>`.
public enum HealthEvent: AreaEvent {
    case recordsStored(RecordsStored)
    case recordsDeleted(RecordsDeleted)
    case manualValueSet(ManualValueSet)
    case manualValueCleared(ManualValueCleared)
    case sourcePriorityChanged(SourcePriorityChanged)
    case checkInRecorded(CheckInRecorded)
    case findingAcknowledged(FindingAcknowledged)

    public var payload: any DomainEvent {
        switch self {
        case .recordsStored(let event): event
        case .recordsDeleted(let event): event
        case .manualValueSet(let event): event
        case .manualValueCleared(let event): event
        case .sourcePriorityChanged(let event): event
        case .checkInRecorded(let event): event
        case .findingAcknowledged(let event): event
        }
    }

    public init?(type: String, version: Int16, json: String) throws {
        switch type {
        case RecordsStored.type: self = .recordsStored(try Self.payload(RecordsStored.self, version, json))
        case RecordsDeleted.type: self = .recordsDeleted(try Self.payload(RecordsDeleted.self, version, json))
        case ManualValueSet.type: self = .manualValueSet(try Self.payload(ManualValueSet.self, version, json))
        case ManualValueCleared.type: self = .manualValueCleared(try Self.payload(ManualValueCleared.self, version, json))
        case SourcePriorityChanged.type: self = .sourcePriorityChanged(try Self.payload(SourcePriorityChanged.self, version, json))
        case CheckInRecorded.type: self = .checkInRecorded(try Self.payload(CheckInRecorded.self, version, json))
        case FindingAcknowledged.type: self = .findingAcknowledged(try Self.payload(FindingAcknowledged.self, version, json))
        default: return nil
        }
    }

    public static let streamType = "health"
    public static func streamId(_ userId: UUID) -> String { "health-\(userId.uuidString.lowercased())" }
    public static let settingsStreamType = "health-settings"
    public static func settingsStreamId(_ userId: UUID) -> String { "health-settings-\(userId.uuidString.lowercased())" }
    /// Check-ins have a stream of their own: one a day would otherwise make every settings
    /// command fold years of them.
    public static let checkInsStreamType = "health-checkins"
    public static func checkInsStreamId(_ userId: UUID) -> String { "health-checkins-\(userId.uuidString.lowercased())" }

    /// The events that change a day's figures or a night.
    public static let affectingDays = [
        RecordsStored.type, RecordsDeleted.type, ManualValueSet.type, ManualValueCleared.type, SourcePriorityChanged.type,
    ]

    /// New items, and new values for items already stored, from one ingestion request (a batch
    /// is cut into events of at most `HealthIngestDecider.recordsPerEvent`). Only what changes
    /// is recorded: a re-sent batch adds nothing to the log.
    public struct RecordsStored: DomainEvent, Equatable {
        public static let type = "health.records_stored"
        /// The device key that sent them; nil for a user's session.
        public var deviceId: UUID?
        public var records: [HealthRecord]
        /// Items these records replace under another key or on another date (an edited sample
        /// with the same uuid): gone from where they were.
        public var replaced: [RecordsDeleted.Removed]
        /// On a request's first event: what the request brought, for the data-quality audit.
        public var intake: Intake?
        /// When the request arrived by the server's clock (seconds since 1970): late data is
        /// told by it, the same way in a rebuild.
        public var receivedAt: Int64?
        /// True when every record was new to the log when the batch was decided (a first sync;
        /// nil before 2026-11-29, and when some replace a stored item): the records projector
        /// then inserts them without checking each key first.
        public var allNew: Bool?
        public init(deviceId: UUID?, records: [HealthRecord], replaced: [RecordsDeleted.Removed] = [], intake: Intake? = nil,
                    receivedAt: Int64? = nil, allNew: Bool? = nil) {
            self.deviceId = deviceId
            self.records = records
            self.replaced = replaced
            self.intake = intake
            self.receivedAt = receivedAt
            self.allNew = allNew
        }
    }

    /// A request's counts as ingestion saw them: the log keeps only what was new, so the
    /// duplicates a request carried are counted here.
    public struct Intake: Codable, Equatable, Sendable {
        /// The route's format: native, health_auto_export, coachfit, pulse, apple_export.
        public var format: String
        /// Items checked (samples, nights' segments, workouts) and how many of them were already stored.
        public var received: Int
        public var duplicates: Int
        public init(format: String, received: Int, duplicates: Int) {
            self.format = format
            self.received = received
            self.duplicates = duplicates
        }
    }

    /// Items the client deleted (by uuid), with what the read models need to forget them.
    public struct RecordsDeleted: DomainEvent, Equatable {
        public static let type = "health.records_deleted"
        public var records: [Removed]
        /// How many items each metric and date of the removed ones held before the deletion, and
        /// when it arrived: what the audit needs to tell a mass deletion, rebuildable from the log.
        public var storedBefore: [DayCount]?
        public var receivedAt: Int64?
        /// The user's logical today when it arrived: "older than 7 days" is in their calendar.
        public var today: LocalDate?
        public init(records: [Removed], storedBefore: [DayCount]? = nil, receivedAt: Int64? = nil, today: LocalDate? = nil) {
            self.records = records
            self.storedBefore = storedBefore
            self.receivedAt = receivedAt
            self.today = today
        }

        public struct DayCount: Codable, Equatable, Sendable {
            public var name: String
            public var date: LocalDate
            public var count: Int
            public init(name: String, date: LocalDate, count: Int) {
                self.name = name
                self.date = date
                self.count = count
            }
        }

        public struct Removed: Codable, Equatable, Sendable {
            public var key: String
            public var kind: HealthRecord.Kind
            public var name: String
            public var date: LocalDate
            public init(key: String, kind: HealthRecord.Kind, name: String, date: LocalDate) {
                self.key = key
                self.kind = kind
                self.name = name
                self.date = date
            }
        }
    }

    /// A person's own figure for a metric and day: it decides that day, whatever devices send.
    public struct ManualValueSet: DomainEvent, Equatable {
        public static let type = "health.manual_value_set"
        public var metric: HealthMetric
        public var date: LocalDate
        public var value: Double
        public init(metric: HealthMetric, date: LocalDate, value: Double) {
            self.metric = metric
            self.date = date
            self.value = value
        }
    }

    public struct ManualValueCleared: DomainEvent, Equatable {
        public static let type = "health.manual_value_cleared"
        public var metric: HealthMetric
        public var date: LocalDate
        public init(metric: HealthMetric, date: LocalDate) {
            self.metric = metric
            self.date = date
        }
    }

    public struct SourcePriorityChanged: DomainEvent, Equatable {
        public static let type = "health.source_priority_changed"
        public var priority: HealthSourcePriority
        public init(priority: HealthSourcePriority) { self.priority = priority }
    }

    /// A person's own word on how they feel on a morning: shown beside the recovery score and in
    /// the briefing, never an input to any number.
    public struct CheckInRecorded: DomainEvent, Equatable {
        public static let type = "health.check_in_recorded"
        public var date: LocalDate
        /// 1 (very bad) to 5 (very good).
        public var feeling: Int
        public var note: String?
        public init(date: LocalDate, feeling: Int, note: String?) {
            self.date = date
            self.feeling = feeling
            self.note = note
        }
    }

    /// The user saw a data-quality finding and set it aside.
    public struct FindingAcknowledged: DomainEvent, Equatable {
        public static let type = "health.finding_acknowledged"
        public var findingId: UUID
        public init(findingId: UUID) { self.findingId = findingId }
    }
}
