import Domain
import Foundation
import Testing

@Suite struct LanguageTests {
    @Test func queryWinsThenAcceptLanguageByQualityThenUserThenEnglish() {
        #expect(Language.resolve(query: "sr", acceptLanguage: "ru", userLanguage: .en) == .sr)
        #expect(Language.resolve(query: "xx", acceptLanguage: "ru", userLanguage: .en) == .ru)
        #expect(Language.resolve(query: nil, acceptLanguage: "de-DE, en;q=0.5, ru;q=0.8", userLanguage: .sr) == .ru)
        #expect(Language.resolve(query: nil, acceptLanguage: "sr-Latn-RS", userLanguage: nil) == .sr)
        #expect(Language.resolve(query: nil, acceptLanguage: "de, fr", userLanguage: .ru) == .ru)
        #expect(Language.resolve(query: nil, acceptLanguage: "ru;q=0", userLanguage: nil) == .en)
        #expect(Language.resolve(query: nil, acceptLanguage: nil, userLanguage: nil) == .en)
    }
}

@Suite struct ProfileChangeTests {
    let profile = UserProfile.new(email: "A@Example.com ", name: " Ana ", timezone: "Europe/Belgrade", language: nil, currency: nil)

    @Test func newProfilesAreNormalisedAndValid() {
        #expect(profile.email == "a@example.com")
        #expect(profile.name == "Ana")
        #expect(profile.currency == "EUR")
        #expect(profile.validationErrors().isEmpty)
    }

    @Test func aChangeReportsWhatChangedAndKeepsTheRest() throws {
        var change = ProfileChange()
        change.timezone = "America/New_York"
        change.dayStartHour = 4
        change.name = "Ana"
        let (next, changed) = try change.apply(to: profile)
        #expect(changed == ["timezone", "day_start_hour"])
        #expect(next.timezone == "America/New_York")
        #expect(next.currency == profile.currency)
    }

    @Test func everyBrokenRuleIsReported() {
        var change = ProfileChangeDraft()
        change.timezone = "UTC+2"
        change.dayStartHour = -1
        change.weekStart = 8
        change.currency = "eur"
        change.reminders = .init(eveningTime: "25:00")
        #expect(throws: ValidationFailure.self) { try ProfileChange.validated(from: change).get().apply(to: profile) }
        do {
            _ = try ProfileChange.validated(from: change).get().apply(to: profile)
        } catch {
            #expect(Set(error.errors.map(\.field)) == ["timezone", "day_start_hour", "week_start", "currency", "reminders.evening_time"])
        }
    }

    @Test func aChangeReadsAsTypesOrNamesEveryWrongFieldInTheOrderItAlwaysHad() {
        var draft = ProfileChangeDraft()
        (draft.name, draft.currency, draft.language) = (" Ana ", "JPY", "sr")
        draft.reminders = .init(morningTime: "07:30", enabledKinds: ["habit", "task_due"])
        var change = ProfileChange()
        (change.name, change.currency, change.language) = ("Ana", Currency("JPY"), .sr)
        change.reminders = .init(morningTime: LocalTime(hour: 7, minute: 30), enabledKinds: [.habit, .taskDue])
        Reading(ProfileChange.self, draft).then(change)
        var bad = ProfileChangeDraft()
        (bad.name, bad.timezone, bad.weekStart, bad.currency, bad.language) = ("", "CET+1", 0, "eur", "de")
        bad.reminders = .init(eveningTime: "8pm", enabledKinds: ["habit", "weekly"])
        Reading(ProfileChange.self, bad).thenErrors([
            FieldError("language", "must be one of en, ru, sr"), FieldError("reminders.evening_time", LocalTime.inputRule),
            FieldError("reminders.enabled_kinds", "each must be one of morning_digest, evening_nudge, task_due, savings_payment_due, habit, shared_savings_payment_due"),
            FieldError("name", "must be 1 to 100 characters"), FieldError("timezone", "must be an IANA time zone name such as Europe/Belgrade"),
            FieldError("week_start", "must be an ISO weekday from 1 (Monday) to 7 (Sunday)"), FieldError("currency", "must be an ISO 4217 code such as EUR"),
        ])
    }

    @Test func onlyIANANamesAreTimeZones() {
        #expect(TimeZones.isValid("Europe/Belgrade"))
        #expect(TimeZones.isValid("UTC"))
        #expect(!TimeZones.isValid("+02:00"))
        #expect(!TimeZones.isValid("Mars/Olympus"))
    }
}

@Suite struct UpcasterTests {
    @Test func oldPayloadsAreBroughtToTheCurrentShapeStepByStep() throws {
        var upcaster = Upcaster()
        upcaster.register("habit.logged", from: 1) { old in
            var new = old
            new["value"] = old["count"] ?? .integer(1)
            new.removeValue(forKey: "count")
            return new
        }
        upcaster.register("habit.logged", from: 2) { old in
            var new = old
            new["source"] = .string("unknown")
            return new
        }
        #expect(upcaster.currentVersion(of: "habit.logged") == 3)
        #expect(upcaster.currentVersion(of: "other") == 1)
        let upgraded = try upcaster.upcast(type: "habit.logged", version: 1, data: Data(#"{"count":9007199254740993,"date":"2026-05-01"}"#.utf8))
        let value = try JSONDecoder().decode([String: JSONValue].self, from: upgraded)
        #expect(value["value"] == .integer(9_007_199_254_740_993))
        #expect(value["source"] == .string("unknown"))
        #expect(value["date"] == .string("2026-05-01"))
        let current = Data(#"{"value":1}"#.utf8)
        #expect(try upcaster.upcast(type: "habit.logged", version: 3, data: current) == current)
        #expect(throws: Upcaster.Failure.newerThanKnown(type: "habit.logged", version: 4)) {
            try upcaster.upcast(type: "habit.logged", version: 4, data: current)
        }
    }
}

@Suite struct EmailTests {
    /// Found by fuzzing: an address such as "ěþ@³ã.mì«é" was stored and then answered under
    /// `format: email`, which it is not. Only what RFC 5321 delivers in ASCII is accepted.
    @Test func onlyASCIIAddressesWithWellFormedPartsAreValid() {
        for valid in ["ana@example.com", "a@b.co", "o'neil+tag@mail.example.org", "x_y@xn--bcher-kva.example"] {
            #expect(Email.isValid(valid), "\(valid)")
        }
        for invalid in ["ěþ@example.com", "ana@exämple.com", "a..b@example.com", ".a@example.com", "a.@example.com", "a@example",
                        "a@-example.com", "a@example-.com", "a@exa_mple.com", "a b@example.com", "@example.com", "a@@example.com",
                        String(repeating: "a", count: 65) + "@example.com"] {
            #expect(!Email.isValid(invalid), "\(invalid)")
        }
    }
}
