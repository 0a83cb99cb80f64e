import Foundation

/// A new habit's fields: one list, read twice. As a client sends them (`HabitDraft`: the kind,
/// dates and times as text) and as the rules take them (`HabitDefinition`: an enum, `LocalDate`,
/// `LocalTime`), which `HabitDefinition.validated(from:)` makes of a draft.
public struct HabitFields<Kind: Sendable, Day: Sendable, Time: Sendable>: Sendable {
    /// Trimmed, once validated.
    public var name: String
    public var emoji: String?
    public var color: String?
    public var kind: Kind
    /// Only a numeric habit's, once validated.
    public var target: Decimal?
    public var unit: String?
    public var schedule: HabitSchedule
    /// Default the logical today.
    public var startDate: Day?
    public var reminderTime: Time?

    public init(name: String, emoji: String? = nil, color: String? = nil, kind: Kind, target: Decimal? = nil, unit: String? = nil,
                schedule: HabitSchedule, startDate: Day? = nil, reminderTime: Time? = nil) {
        self.name = name
        self.emoji = emoji
        self.color = color
        self.kind = kind
        self.target = target
        self.unit = unit
        self.schedule = schedule
        self.startDate = startDate
        self.reminderTime = reminderTime
    }
}

public typealias HabitDraft = HabitFields<String, String, String>
public typealias HabitDefinition = HabitFields<HabitEvent.Kind, LocalDate, LocalTime>

extension HabitFields: Decodable where Kind: Decodable, Day: Decodable, Time: Decodable {}
extension HabitFields: Equatable where Kind: Equatable, Day: Equatable, Time: Equatable {}

/// A partial update's fields, as `PATCH /habits/{id}` sends them (`HabitChangeDraft`, JSON
/// Merge Patch: absent fields stay; `null` clears emoji, color, unit or reminder_time) and as the
/// rules take them (`HabitChange`, made by `HabitChange.validated(from:)`).
public struct HabitChangeFields<Day: Sendable, Time: Sendable>: Sendable {
    /// Trimmed, once validated.
    public var name: String?
    public var emoji: PatchField<String> = .keep
    public var color: PatchField<String> = .keep
    public var target: Decimal?
    public var unit: PatchField<String> = .keep
    public var reminderTime: PatchField<Time> = .keep
    public var schedule: HabitSchedule?
    /// The date a schedule change applies from; default the user's logical today.
    public var effectiveFrom: Day?

    public init(name: String? = nil, emoji: PatchField<String> = .keep, color: PatchField<String> = .keep, target: Decimal? = nil,
                unit: PatchField<String> = .keep, reminderTime: PatchField<Time> = .keep, schedule: HabitSchedule? = nil,
                effectiveFrom: Day? = nil) {
        self.name = name
        self.emoji = emoji
        self.color = color
        self.target = target
        self.unit = unit
        self.reminderTime = reminderTime
        self.schedule = schedule
        self.effectiveFrom = effectiveFrom
    }
}

public typealias HabitChangeDraft = HabitChangeFields<String, String>
public typealias HabitChange = HabitChangeFields<LocalDate, LocalTime>

extension HabitChangeFields: Equatable where Day: Equatable, Time: Equatable {}

extension HabitChangeFields: Decodable where Day: Decodable, Time: Decodable {
    enum CodingKeys: String, CodingKey { case name, emoji, color, target, unit, reminderTime, schedule, effectiveFrom }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        emoji = try container.decodePatch(String.self, forKey: .emoji)
        color = try container.decodePatch(String.self, forKey: .color)
        target = try container.decodeIfPresent(Decimal.self, forKey: .target)
        unit = try container.decodePatch(String.self, forKey: .unit)
        reminderTime = try container.decodePatch(Time.self, forKey: .reminderTime)
        schedule = try container.decodeIfPresent(HabitSchedule.self, forKey: .schedule)
        effectiveFrom = try container.decodeIfPresent(Day.self, forKey: .effectiveFrom)
    }
}

/// What a client can ask of a habit, in domain types: the API reads each request's draft into
/// these (`HabitDraft`, `HabitChangeDraft`, `HabitFreezeDraft`), and a bad field never gets here.
public enum HabitCommand: Sendable {
    case create(id: UUID, HabitDefinition)
    case change(HabitChange)
    case archive
    case restore
    /// `date` default the logical today; `value` for numeric habits.
    case log(date: LocalDate?, value: Decimal?)
    case removeLog(date: LocalDate)
    /// `id` is used only when the freeze is new.
    case addFreeze(id: UUID, Habit.Freeze)
    case removeFreeze(id: UUID)
}
