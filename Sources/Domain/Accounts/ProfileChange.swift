/// A partial update of a profile, as `PATCH /me` sends it (the shape `GET /me` answers with):
/// absent fields stay as they are.
public struct ProfileChange: Sendable, Equatable, Decodable {
    public struct Reminders: Sendable, Equatable, Decodable {
        public var morningTime: String?
        public var eveningTime: String?
        public var enabledKinds: [String]?
        /// Where reminders are pushed; `null` removes it. Not part of the profile's events: it
        /// is kept beside its signing secret (see `webhook_endpoints`).
        public var webhookUrl: PatchField<String> = .keep
        /// Write-only: generated when absent, shown once.
        public var webhookSecret: PatchField<String> = .keep

        public init(morningTime: String? = nil, eveningTime: String? = nil, enabledKinds: [String]? = nil) {
            self.morningTime = morningTime
            self.eveningTime = eveningTime
            self.enabledKinds = enabledKinds
        }

        enum CodingKeys: String, CodingKey { case morningTime, eveningTime, enabledKinds, webhookUrl, webhookSecret }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            morningTime = try container.decodeIfPresent(String.self, forKey: .morningTime)
            eveningTime = try container.decodeIfPresent(String.self, forKey: .eveningTime)
            enabledKinds = try container.decodeIfPresent([String].self, forKey: .enabledKinds)
            webhookUrl = try container.decodePatch(String.self, forKey: .webhookUrl)
            webhookSecret = try container.decodePatch(String.self, forKey: .webhookSecret)
        }
    }

    public var name: String?
    public var timezone: String?
    public var dayStartHour: Int?
    public var weekStart: Int?
    public var currency: String?
    public var language: String?
    public var reminders: Reminders?

    public init() {}

    var morningTime: String? { reminders?.morningTime }
    var eveningTime: String? { reminders?.eveningTime }
    var reminderKinds: [String]? { reminders?.enabledKinds }

    /// The profile after the change and the fields that changed, or every broken rule.
    /// Changing the time zone never touches stored local dates: those are facts of the past.
    public func apply(to profile: UserProfile) throws(ValidationFailure) -> (UserProfile, [String]) {
        var next = profile
        var errors: [FieldError] = []
        if let name { next.name = name.trimmingCharacters(in: .whitespacesAndNewlines) }
        if let timezone { next.timezone = timezone }
        if let dayStartHour { next.dayStartHour = dayStartHour }
        if let weekStart { next.weekStart = weekStart }
        if let currency { next.currency = currency }
        if let language {
            if let parsed = Language(rawValue: language) { next.language = parsed }
            else { errors.append(FieldError("language", "must be one of en, ru, sr")) }
        }
        if let morningTime {
            if let parsed = LocalTime(morningTime) { next.morningTime = parsed }
            else { errors.append(FieldError("reminders.morning_time", "must be a time of day as HH:MM")) }
        }
        if let eveningTime {
            if let parsed = LocalTime(eveningTime) { next.eveningTime = parsed }
            else { errors.append(FieldError("reminders.evening_time", "must be a time of day as HH:MM")) }
        }
        if let reminderKinds {
            let parsed = reminderKinds.compactMap(ReminderKind.init(rawValue:))
            if parsed.count == reminderKinds.count { next.reminderKinds = ReminderKind.allCases.filter(parsed.contains) }
            else {
                errors.append(FieldError("reminders.enabled_kinds", "each must be one of " + ReminderKind.allCases.map(\.rawValue).joined(separator: ", ")))
            }
        }
        errors += next.validationErrors()
        try ValidationFailure.check(errors)
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
