/// A partial update of a profile's fields, as `PATCH /me` sends them (`ProfileChangeDraft`: the
/// shape `GET /me` answers with, codes and times as text) and as the rules take them
/// (`ProfileChange`: a `Currency`, a `Language`, `LocalTime`s, `ReminderKind`s, the name
/// trimmed), which `ProfileChange.validated(from:)` reads a draft into. Absent fields stay as
/// they are. The time zone stays an IANA name: the profile keeps it so, checked.
public struct ProfileChangeFields<Code: Sendable, Lang: Sendable, Time: Sendable, Kind: Sendable>: Sendable {
    public var name: String?
    public var timezone: String?
    public var dayStartHour: Int?
    public var weekStart: Int?
    public var currency: Code?
    public var language: Lang?
    public var reminders: ReminderSettingsFields<Time, Kind>?

    public init() {}
}

public typealias ProfileChangeDraft = ProfileChangeFields<String, String, String, String>
public typealias ProfileChange = ProfileChangeFields<Currency, Language, LocalTime, ReminderKind>

extension ProfileChangeFields: Decodable where Code: Decodable, Lang: Decodable, Time: Decodable, Kind: Decodable {}
extension ProfileChangeFields: Equatable where Code: Equatable, Lang: Equatable, Time: Equatable, Kind: Equatable {}

/// The reminder settings a profile change may carry (`reminders` in `PATCH /me`).
public struct ReminderSettingsFields<Time: Sendable, Kind: Sendable>: Sendable {
    public var morningTime: Time?
    public var eveningTime: Time?
    public var enabledKinds: [Kind]?
    /// Where reminders are pushed; `null` removes it. Not part of the profile's events: it
    /// is kept beside its signing secret (see `webhook_endpoints`).
    public var webhookUrl: PatchField<String> = .keep
    /// Write-only: generated when absent, shown once.
    public var webhookSecret: PatchField<String> = .keep

    public init(morningTime: Time? = nil, eveningTime: Time? = nil, enabledKinds: [Kind]? = nil) {
        self.morningTime = morningTime
        self.eveningTime = eveningTime
        self.enabledKinds = enabledKinds
    }
}

extension ReminderSettingsFields: Equatable where Time: Equatable, Kind: Equatable {}

extension ReminderSettingsFields: Decodable where Time: Decodable, Kind: Decodable {
    enum CodingKeys: String, CodingKey { case morningTime, eveningTime, enabledKinds, webhookUrl, webhookSecret }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        morningTime = try container.decodeIfPresent(Time.self, forKey: .morningTime)
        eveningTime = try container.decodeIfPresent(Time.self, forKey: .eveningTime)
        enabledKinds = try container.decodeIfPresent([Kind].self, forKey: .enabledKinds)
        webhookUrl = try container.decodePatch(String.self, forKey: .webhookUrl)
        webhookSecret = try container.decodePatch(String.self, forKey: .webhookSecret)
    }
}

// Every rule of a change is the draft's alone (the stored profile already keeps them all).
extension ProfileChangeFields: ValidatedInput where Code == Currency, Lang == Language, Time == LocalTime, Kind == ReminderKind {
    public static func validated(from draft: ProfileChangeDraft) -> Result<ProfileChange, ValidationFailure> {
        var errors = FieldErrors()
        var change = ProfileChange()
        change.language = errors.parse(draft.language, field: "language", rule: "must be one of en, ru, sr", Language.init(rawValue:))
        if let reminders = draft.reminders {
            var settings = ReminderSettingsFields<LocalTime, ReminderKind>()
            settings.morningTime = errors.parse(reminders.morningTime, field: "reminders.morning_time", rule: LocalTime.inputRule, LocalTime.init)
            settings.eveningTime = errors.parse(reminders.eveningTime, field: "reminders.evening_time", rule: LocalTime.inputRule, LocalTime.init)
            if let names = reminders.enabledKinds {
                settings.enabledKinds = ReminderKind.list(names)
                if settings.enabledKinds == nil { errors.add(FieldError("reminders.enabled_kinds", ReminderKind.listRule)) }
            }
            (settings.webhookUrl, settings.webhookSecret) = (reminders.webhookUrl, reminders.webhookSecret)
            change.reminders = settings
        }
        change.name = draft.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        errors.add(change.name.flatMap(UserProfile.nameError))
        errors.add(draft.timezone.flatMap(UserProfile.timezoneError))
        errors.add(draft.dayStartHour.flatMap(UserProfile.dayStartHourError))
        errors.add(draft.weekStart.flatMap(UserProfile.weekStartError))
        change.currency = errors.parse(draft.currency, field: "currency", rule: UserProfile.currencyRule, Currency.init)
        (change.timezone, change.dayStartHour, change.weekStart) = (draft.timezone, draft.dayStartHour, draft.weekStart)
        return errors.result { change }
    }
}

extension ProfileChange {
    var morningTime: LocalTime? { reminders?.morningTime }
    var eveningTime: LocalTime? { reminders?.eveningTime }
    var reminderKinds: [ReminderKind]? { reminders?.enabledKinds }

    /// The profile after the change and the fields that changed; refused when the profile would
    /// break a rule it keeps. Changing the time zone never touches stored local dates: those are
    /// facts of the past.
    public func apply(to profile: UserProfile) throws(ValidationFailure) -> (UserProfile, [String]) {
        var next = profile
        if let name { next.name = name }
        if let timezone { next.timezone = timezone }
        if let dayStartHour { next.dayStartHour = dayStartHour }
        if let weekStart { next.weekStart = weekStart }
        if let currency { next.currency = currency.code }
        if let language { next.language = language }
        if let morningTime { next.morningTime = morningTime }
        if let eveningTime { next.eveningTime = eveningTime }
        if let reminderKinds { next.reminderKinds = ReminderKind.allCases.filter(reminderKinds.contains) }
        try ValidationFailure.check(next.validationErrors())
        var changed: [String] = []
        if next.name != profile.name { changed.append("name") }
        if next.timezone != profile.timezone { changed.append("timezone") }
        if next.dayStartHour != profile.dayStartHour { changed.append("day_start_hour") }
        if next.weekStart != profile.weekStart { changed.append("week_start") }
        if next.currency != profile.currency { changed.append("currency") }
        if next.language != profile.language { changed.append("language") }
        if next.morningTime != profile.morningTime { changed.append("reminders.morning_time") }
        if next.eveningTime != profile.eveningTime { changed.append("reminders.evening_time") }
        if next.reminderKinds != profile.reminderKinds { changed.append("reminders.enabled_kinds") }
        return (next, changed)
    }
}

extension ReminderKind {
    static let listRule = "each must be one of " + ReminderKind.allCases.map(\.rawValue).joined(separator: ", ")

    /// Every name a kind, or nil.
    static func list(_ names: [String]) -> [ReminderKind]? {
        let kinds = names.compactMap(ReminderKind.init(rawValue:))
        return kinds.count == names.count ? kinds : nil
    }
}
