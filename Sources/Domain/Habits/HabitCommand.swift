import Foundation

/// A new habit, as `POST /habits` sends it; the decider checks every field.
public struct HabitDefinition: Sendable, Decodable {
    public var name: String
    public var emoji: String?
    public var color: String?
    public var kind: String
    public var target: Decimal?
    public var unit: String?
    public var schedule: HabitSchedule
    public var startDate: String?
    public var reminderTime: String?

    public init(name: String, emoji: String? = nil, color: String? = nil, kind: String, target: Decimal? = nil, unit: String? = nil,
                schedule: HabitSchedule, startDate: String? = nil, reminderTime: String? = nil) {
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

/// A partial update, as JSON Merge Patch reads it: absent fields stay; `null` clears emoji,
/// color, unit or reminder_time.
public struct HabitChange: Sendable, Decodable {
    public var name: String?
    public var emoji: PatchField<String> = .keep
    public var color: PatchField<String> = .keep
    public var target: Decimal?
    public var unit: PatchField<String> = .keep
    public var reminderTime: PatchField<String> = .keep
    public var schedule: HabitSchedule?
    /// The date a schedule change applies from; default the user's logical today.
    public var effectiveFrom: String?

    public init(name: String? = nil, emoji: PatchField<String> = .keep, color: PatchField<String> = .keep, target: Decimal? = nil,
                unit: PatchField<String> = .keep, reminderTime: PatchField<String> = .keep, schedule: HabitSchedule? = nil,
                effectiveFrom: String? = nil) {
        self.name = name
        self.emoji = emoji
        self.color = color
        self.target = target
        self.unit = unit
        self.reminderTime = reminderTime
        self.schedule = schedule
        self.effectiveFrom = effectiveFrom
    }

    enum CodingKeys: String, CodingKey { case name, emoji, color, target, unit, reminderTime, schedule, effectiveFrom }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        emoji = try container.decodePatch(String.self, forKey: .emoji)
        color = try container.decodePatch(String.self, forKey: .color)
        target = try container.decodeIfPresent(Decimal.self, forKey: .target)
        unit = try container.decodePatch(String.self, forKey: .unit)
        reminderTime = try container.decodePatch(String.self, forKey: .reminderTime)
        schedule = try container.decodeIfPresent(HabitSchedule.self, forKey: .schedule)
        effectiveFrom = try container.decodeIfPresent(String.self, forKey: .effectiveFrom)
    }
}

/// What a client can ask of a habit.
public enum HabitCommand: Sendable {
    case create(id: UUID, HabitDefinition)
    case change(HabitChange)
    case archive
    case restore
    /// `date` as sent (default the logical today); `value` for numeric habits.
    case log(date: String?, value: Decimal?)
    case removeLog(date: String)
    /// `id` is used only when the freeze is new.
    case addFreeze(id: UUID, from: String, to: String, reason: String?)
    case removeFreeze(id: UUID)
}
