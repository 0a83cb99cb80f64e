import API
import Core
import Crypto
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct HardeningTests {
    @Test func parallelGuessesCannotSlipPastTheThrottle() async throws {
        try await AppHarness.with { harness, http in
            try await http.register("parallel@example.com")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"parallel@example.com","password":"guess number one"}"#).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 5)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 7)
        }
    }

    @Test func aStaleTokenDoesNotBlockThePublicRoutes() async throws {
        try await AppHarness.with { harness, http in
            let registered = try await http.register("stale@example.com")
            let access = try #require(registered.string("access_token"))
            let refresh = try #require(registered.string("refresh_token"))
            harness.clock.advance(by: 20 * 60)
            // The client still attaches its expired access token; refresh and login must work.
            let refreshed = try await http.call(.post, "/api/v1/auth/refresh", token: access, json: #"{"refresh_token":"\#(refresh)"}"#)
            #expect(refreshed.status == .ok)
            let login = try await http.call(.post, "/api/v1/auth/login", token: access,
                                            json: #"{"email":"stale@example.com","password":"correct horse battery"}"#)
            #expect(login.status == .ok)
            // A route that needs the identity still says why the token was refused.
            let me = try await http.call(.get, "/api/v1/me", token: access)
            #expect(me.status == .unauthorized)
            #expect(me.string("detail") == "the access token has expired")
        }
    }

    @Test func controlCharactersAreInvalidInputNotServerErrors() async throws {
        try await AppHarness.with { harness, http in
            let nulName = try await http.call(.post, "/api/v1/auth/register",
                json: #"{"email":"nul@example.com","password":"correct horse battery","name":"A\u0000B","timezone":"UTC"}"#)
            #expect(nulName.status == .unprocessableContent)
            let nulPassword = try await http.call(.post, "/api/v1/auth/register",
                json: #"{"email":"nul@example.com","password":"\u0000correct horse","name":"A","timezone":"UTC"}"#)
            #expect(nulPassword.status == .unprocessableContent)
            // A NUL is named where it is; no account can have it, so this reveals nothing.
            let nulLogin = try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"a\u0000@example.com","password":"whatever it is"}"#)
            #expect(nulLogin.status == .unprocessableContent)
            #expect(nulLogin.fieldErrors == ["email"])
            let longLogin = try await http.call(.post, "/api/v1/auth/login",
                json: #"{"email":"\#(String(repeating: "x", count: 5_000))@example.com","password":"whatever it is"}"#)
            #expect(longLogin.status == .unauthorized)
            let token = try #require(try await http.register("ok@example.com").string("access_token"))
            let device = try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"W\u0000","kind":"watch"}"#)
            #expect(device.status == .unprocessableContent)
            // A name is one line: a newline or tab in a habit name is refused like in any other name.
            let habit = try await http.call(.post, "/api/v1/habits", token: token,
                json: #"{"name":"Read\nmore","kind":"boolean","schedule":{"type":"daily"}}"#)
            #expect(habit.status == .unprocessableContent)
            #expect(habit.text.contains("control characters"))
        }
    }

    /// Strict JSON (issue 9): what is not JSON is a 400; what is JSON but cannot be kept as sent
    /// is a 422 naming the field; and either changes nothing.
    @Test func bodiesAreStrictJSONAndRefusalsNameTheField() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("strict@example.com").string("access_token"))
            let trailing = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"a",}"#)
            #expect(trailing.status == .badRequest, "\(trailing.text)")
            #expect(trailing.headers[.contentType] == "application/problem+json")
            #expect(trailing.string("detail")?.contains("comma before the closing brace") == true)
            let half = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"a","priority":1.5}"#)
            #expect(half.status == .unprocessableContent, "\(half.text)")
            #expect(half.fieldErrors == ["priority"])
            let almostThree = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"a","priority":2.9999999999999999999}"#)
            #expect(almostThree.status == .unprocessableContent, "\(almostThree.text)")
            #expect(almostThree.fieldErrors == ["priority"])
            let nul = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"a","notes":"x\u0000y"}"#)
            #expect(nul.status == .unprocessableContent, "\(nul.text)")
            #expect(nul.fieldErrors == ["notes"])
            // Deep in a patch too: a whole number that is not one, among valid fractions.
            let habit = try await http.call(.post, "/api/v1/habits", token: token,
                json: #"{"name":"Walk","kind":"numeric","target":2.5,"unit":"km","schedule":{"type":"times_per_week","count":2.5}}"#)
            #expect(habit.status == .unprocessableContent, "\(habit.text)")
            #expect(habit.fieldErrors == ["schedule.count"])
            let tasks = try await http.call(.get, "/api/v1/tasks", token: token)
            #expect((tasks.object["items"] as? [Any])?.isEmpty == true)
            // The same task, sent as JSON, is taken.
            #expect(try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"a","priority":3.0}"#).status == .created)
        }
    }

    /// The string rules hold for what a route reads (issue 24): a NUL or half a surrogate pair
    /// in a member no route reads is ignored, as any unknown member is; in a field it reads it
    /// is a 422 naming that field, and nothing is stored.
    @Test func stringRulesHoldForTheFieldsARouteReadsOnly() async throws {
        try await AppHarness.with { harness, http in
            let registered = try await http.register("strings@example.com")
            let token = try #require(registered.string("access_token"))
            let refresh = try #require(registered.string("refresh_token"))
            let ignored = try await http.call(.post, "/api/v1/tasks", token: token,
                json: #"{"title":"a","x":"\u0000","\u0000":[{"n\u0000":"\ud800"}],"y":"\udc00z"}"#)
            #expect(ignored.status == .created, "\(ignored.text)")
            let renewed = try await http.call(.post, "/api/v1/auth/refresh",
                json: #"{"\b\udabb\udd10":[true,{"n\u001a\u0000c":["x"]}],"refresh_token":"\#(refresh)"}"#)
            #expect(renewed.status == .ok, "\(renewed.text)")
            for (body, field, message) in [
                (#"{"title":"x\u0000y"}"#, "title", "contains a NUL character"),
                (#"{"title":"a","notes":"\ud83d"}"#, "notes", "contains half of a UTF-16 surrogate pair"),
                (#"{"title":"a","due_date":"2026-01-01","repeat":{"every":"we\udc00k"}}"#, "repeat.every", "contains half of a UTF-16 surrogate pair"),
            ] {
                let refused = try await http.call(.post, "/api/v1/tasks", token: token, json: body)
                #expect(refused.status == .unprocessableContent, "\(body): \(refused.text)")
                #expect(refused.fieldErrors == [field], "\(body)")
                #expect(refused.string("detail") == "\(field): \(message)", "\(body)")
            }
            let tasks = try await http.call(.get, "/api/v1/tasks", token: token)
            #expect((tasks.object["items"] as? [Any])?.count == 1)
        }
    }

    /// `null` only where the document marks a field nullable (issue 24): elsewhere it is a 422
    /// naming the field, not the same as leaving it out; in a PATCH null still clears what the
    /// document says it clears. Nothing of a refused request is stored.
    @Test func nullIsRefusedWhereTheDocumentAllowsNone() async throws {
        try await AppHarness.with { harness, http in
            let nullCurrency = try await http.call(.post, "/api/v1/auth/register",
                json: #"{"email":"null@example.com","password":"correct horse battery","name":"N","timezone":"UTC","currency":null}"#)
            #expect(nullCurrency.status == .unprocessableContent, "\(nullCurrency.text)")
            #expect(nullCurrency.string("detail") == "currency: must not be null")
            let token = try #require(try await http.register("null@example.com").string("access_token"))
            let version = try #require(try await http.call(.get, "/api/v1/me", token: token).headers[.eTag])
            for (method, path, body, field) in [
                (HTTPRequest.Method.patch, "/api/v1/me", #"{"name":null,"timezone":"UTC"}"#, "name"),
                (.patch, "/api/v1/me", #"{"reminders":null}"#, "reminders"),
                (.patch, "/api/v1/me", #"{"reminders":{"morning_time":null}}"#, "reminders.morning_time"),
                (.post, "/api/v1/tasks", #"{"title":"a","notes":null}"#, "notes"),
                (.post, "/api/v1/habits", #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"emoji":null}"#, "emoji"),
                (.post, "/api/v1/finance/transactions", #"{"kind":"expense","amount":"1.00","currency":null}"#, "currency"),
                (.put, "/api/v1/health/manual/steps/2026-03-09", #"{"value":10,"unit":null}"#, "unit"),
                (.post, "/api/v1/tasks", #"{"title":null}"#, "title"),
            ] {
                let refused = try await http.call(method, path, token: token, json: body)
                #expect(refused.status == .unprocessableContent, "\(path) \(body): \(refused.text)")
                #expect(refused.string("detail") == "\(field): must not be null", "\(path) \(body)")
            }
            let me = try await http.call(.get, "/api/v1/me", token: token)
            #expect(me.headers[.eTag] == version)
            #expect(me.string("timezone") == "Europe/Belgrade")
            #expect((try await http.call(.get, "/api/v1/tasks", token: token).object["items"] as? [Any])?.isEmpty == true)
            #expect(try await harness.count("SELECT count(*) FROM events WHERE event_type NOT LIKE 'user.%' AND event_type NOT LIKE 'device.%'") == 0)
            // Where the document says nullable, null is taken: a task's notes cleared, a freeze without a reason.
            let task = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"a","notes":"n"}"#)
            let cleared = try await http.call(.patch, "/api/v1/tasks/\(try #require(task.string("id")))", token: token, json: #"{"notes":null}"#)
            #expect(cleared.status == .ok)
            #expect(cleared.object["notes"] == nil)
            let habit = try await http.call(.post, "/api/v1/habits", token: token, json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"}}"#)
            let today = try #require(habit.string("start_date"))
            let freeze = try await http.call(.post, "/api/v1/habits/\(try #require(habit.string("id")))/freezes", token: token,
                                             json: #"{"from":"\#(today)","to":"\#(today)","reason":null}"#)
            #expect(freeze.status == .created, "\(freeze.text)")
        }
    }

    /// The fingerprint kept for an Idempotency-Key is keyed: a dump of the table and a guess at
    /// a new password cannot be checked against it with a plain hash.
    @Test func idempotencyFingerprintsOfPasswordChangesAreKeyed() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("dump@example.com").string("access_token"))
            let body = #"{"current_password":"correct horse battery","new_password":"staple battery horse"}"#
            let changed = try await http.call(.post, "/api/v1/me/password", token: token, headers: [.init("Idempotency-Key")!: "pw-1"], json: body)
            #expect(changed.status == .ok)
            var stored: [ByteBuffer] = []
            for try await hash in try await harness.client.query("SELECT request_hash FROM idempotency_keys").decode(ByteBuffer.self) {
                stored.append(hash)
            }
            let plain = ByteBuffer(bytes: SHA256.hash(data: Data("user POST /api/v1/me/password\n\(body)".utf8)))
            #expect(stored.count == 1)
            #expect(stored.first?.readableBytes == 32)
            #expect(stored.first != plain)
            // The change ended the old session; the retry comes with the new one.
            let fresh = try #require(changed.string("access_token"))
            let replayed = try await http.call(.post, "/api/v1/me/password", token: fresh, headers: [.init("Idempotency-Key")!: "pw-1"], json: body)
            #expect(replayed.status == .ok)
            #expect(replayed.headers[.init("Idempotent-Replayed")!] == "true")
        }
    }

    @Test func aBatchWithARepeatedEventIdIsRefused() async throws {
        try await TestDatabase.withAppClient { _, client in
            let store = PostgresEventStore(client: client, keyring: AppHarness.keyring, logger: TestDatabase.logger)
            let event = Fixtures.event()
            let stream = Fixtures.stream()
            await #expect(throws: EventStoreError.eventIdConflict(stream: stream.id)) {
                try await store.append(to: stream, expected: .any, events: [event, event])
            }
        }
    }
}
