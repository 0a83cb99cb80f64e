import Domain
import Foundation

// An import's account commands, through `ProfileService`: the exported settings (name, time
// zone, day start, week start, currency, language, reminder times and kinds) become the
// account's. Its email, password, sessions and devices stay its own.
extension ImportService {
    func profileStep(_ owner: UUID, key: String, _ profile: LifelogImportLine.Profile) -> ImportStep {
        let profiles = self.profiles
        return ImportStep(key) { context in
            var change = ProfileChangeDraft()
            change.name = profile.name
            change.timezone = profile.timezone
            change.dayStartHour = profile.dayStartHour
            change.weekStart = profile.weekStart
            change.currency = profile.currency
            change.language = profile.language
            _ = try await profiles.update(context, change: try ProfileChange.validated(from: change).get())
            return nil
        }
    }

    func reminderSettingsStep(_ owner: UUID, key: String, morning: String?, evening: String?, kinds: [String]?) -> ImportStep {
        let profiles = self.profiles
        return ImportStep(key) { context in
            var change = ProfileChangeDraft()
            change.reminders = ReminderSettingsFields(morningTime: morning, eveningTime: evening, enabledKinds: kinds)
            _ = try await profiles.update(context, change: try ProfileChange.validated(from: change).get())
            return nil
        }
    }
}
