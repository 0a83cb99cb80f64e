import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct ProfileTests {
    @Test func patchChangesSettingsAndHonoursIfMatch() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("me@example.com").string("access_token"))
            let changed = try await http.call(.patch, "/api/v1/me", token: token, headers: [.ifMatch: "\"1\""],
                json: #"{"timezone":"America/New_York","day_start_hour":4,"week_start":7,"currency":"USD","language":"sr","reminders":{"morning_time":"07:30","enabled_kinds":["morning_digest"]}}"#)
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] == "\"2\"")
            #expect(changed.string("timezone") == "America/New_York")
            #expect(changed.object["day_start_hour"] as? Int == 4)
            #expect(changed.string("language") == "sr")
            let reminders = changed.object["reminders"] as? [String: Any]
            #expect(reminders?["morning_time"] as? String == "07:30")
            #expect(reminders?["enabled_kinds"] as? [String] == ["morning_digest"])
            #expect(reminders?["evening_time"] as? String == "20:00")

            let stale = try await http.call(.patch, "/api/v1/me", token: token, headers: [.ifMatch: "\"1\""], json: #"{"name":"Late"}"#)
            #expect(stale.status == .preconditionFailed)
            #expect(try await http.call(.get, "/api/v1/me", token: token).string("name") == "Test User")

            let invalid = try await http.call(.patch, "/api/v1/me", token: token,
                json: #"{"day_start_hour":24,"timezone":"Mars/Olympus","reminders":{"morning_time":"7am"},"language":"de"}"#)
            #expect(invalid.status == .unprocessableContent)
            let fields = Set((invalid.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["day_start_hour", "timezone", "reminders.morning_time", "language"])
            #expect(try await http.call(.get, "/api/v1/me", token: token).headers[.eTag] == "\"2\"")
        }
    }

    @Test func problemTitlesFollowTheRequestedLanguage() async throws {
        try await AppHarness.with { harness, http in
            let russian = try await http.call(.get, "/api/v1/me", headers: [.acceptLanguage: "ru-RU,ru;q=0.9,en;q=0.5"])
            #expect(russian.string("title") == "Требуется вход")
            let serbian = try await http.call(.get, "/api/v1/me?lang=sr", headers: [.acceptLanguage: "ru"])
            #expect(serbian.string("title") == "Potrebna je prijava")
            let english = try await http.call(.get, "/api/v1/me", headers: [.acceptLanguage: "de"])
            #expect(english.string("title") == "Unauthenticated")

            // A signed-in user who names no language gets their own; a request that names one wins.
            let token = try #require(try await http.register("srpski@example.com").string("access_token"))
            #expect(try await http.call(.patch, "/api/v1/me", token: token, json: #"{"language":"sr"}"#).status == .ok)
            let missing = try await http.call(.get, "/api/v1/tasks/\(UUID())", token: token)
            #expect(missing.status == .notFound)
            #expect(missing.string("title") == "Nije pronađeno")
            let asked = try await http.call(.get, "/api/v1/tasks/\(UUID())?lang=ru", token: token)
            #expect(asked.string("title") == "Не найдено")
            // A browser's Accept-Language in a language we do not speak falls through to the user's.
            let german = try await http.call(.get, "/api/v1/tasks/\(UUID())", token: token, headers: [.acceptLanguage: "de-DE,de;q=0.9"])
            #expect(german.string("title") == "Nije pronađeno")
            let spoken = try await http.call(.get, "/api/v1/tasks/\(UUID())", token: token, headers: [.acceptLanguage: "ru"])
            #expect(spoken.string("title") == "Не найдено")
        }
    }
}
