import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct DeviceTests {
    @Test func deviceKeysAreShownOnceAndScopedToIngestion() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("dev@example.com").string("access_token"))
            let created = try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(created.status == .created)
            let key = try #require(created.string("api_key"))
            let id = try #require(created.string("id"))

            let list = try await http.call(.get, "/api/v1/devices", token: token)
            let items = list.object["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1)
            #expect(items.first?["api_key"] == nil)
            #expect(!list.text.contains(key))

            // The three ways to send a key.
            for (headers, uri) in [([HTTPField.Name.authorization: "Bearer \(key)"], "/api/v1/ingest/whoami"),
                                   ([HTTPField.Name("X-API-Key")!: key], "/api/v1/ingest/whoami"),
                                   ([:], "/api/v1/ingest/whoami?key=\(key)")] {
                let whoami = try await http.call(.get, uri, headers: HTTPFields(headers.map { HTTPField(name: $0.key, value: $0.value) }))
                #expect(whoami.status == .ok)
                #expect(whoami.string("scope") == "ingestion")
                #expect(whoami.string("device_id") == id)
            }
            // One credential per request: a second one, right or wrong, makes the caller ambiguous.
            for extra in [key, "lld_not-a-key"] {
                let both = try await http.call(.get, "/api/v1/ingest/whoami", token: token, headers: [.init("X-API-Key")!: extra])
                #expect(both.status == .unauthorized)
                #expect(both.text.contains("one credential"))
            }
            #expect(try await http.call(.get, "/api/v1/ingest/whoami?key=\(key)", headers: [.init("X-API-Key")!: key]).status == .unauthorized)
            // A repeated credential is two credentials, in the query as in the headers.
            let repeated = try await http.call(.get, "/api/v1/ingest/whoami?key=\(key)&key=junk")
            #expect(repeated.status == .unauthorized)
            #expect(repeated.text.contains("one credential"))
            // Scoped to ingestion: a device key cannot read the profile.
            let me = try await http.call(.get, "/api/v1/me", headers: [.init("X-API-Key")!: key])
            #expect(me.status == .forbidden)
            let listed = try await http.call(.get, "/api/v1/devices", token: token)
            let used = try #require((listed.object["items"] as? [[String: Any]])?.first)
            let usedAt = try #require(used["last_used_at"] as? String)
            // What a page shows: the user's own wall clock (registered in Belgrade), not UTC.
            #expect(used["last_used_local"] as? String == wallClock(usedAt, in: "Europe/Belgrade"), "\(listed.text)")
            #expect(used["last_used_local"] as? String != wallClock(usedAt, in: "UTC"))

            #expect(try await http.call(.delete, "/api/v1/devices/\(id)", token: token).status == .noContent)
            #expect(try await http.call(.get, "/api/v1/ingest/whoami", headers: [.init("X-API-Key")!: key]).status == .unauthorized)
            #expect(try await http.call(.delete, "/api/v1/devices/\(id)", token: token).status == .notFound)
            let empty = try await http.call(.get, "/api/v1/devices", token: token)
            #expect((empty.object["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func devicesArePagedWithAnOpaqueCursor() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("pages@example.com").string("access_token"))
            for n in 0..<5 {
                harness.clock.advance(by: 1)
                #expect(try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"D\#(n)","kind":"app"}"#).status == .created)
            }
            var names: [String] = []
            var cursor: String?
            repeat {
                let page = try await http.call(.get, "/api/v1/devices?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                names += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                cursor = page.string("next_cursor")
            } while cursor != nil
            #expect(names == ["D0", "D1", "D2", "D3", "D4"])
            #expect(try await http.call(.get, "/api/v1/devices?limit=0", token: token).status == .unprocessableContent)
            #expect(try await http.call(.get, "/api/v1/devices?cursor=garbage", token: token).status == .badRequest)
            // A forged cursor with an absurd time is refused, not trusted.
            let forged = Data(#"{"createdAtMicros":9223372036854775807,"id":"00000000-0000-0000-0000-000000000000"}"#.utf8)
                .base64EncodedString().replacingOccurrences(of: "=", with: "")
            #expect(try await http.call(.get, "/api/v1/devices?cursor=\(forged)", token: token).status == .badRequest)
        }
    }

    @Test func pairingCodesAreSingleUseAndExpire() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("pair@example.com").string("access_token"))
            let made = try await http.call(.post, "/api/v1/devices/pairing-codes", token: token)
            #expect(made.status == .created)
            let code = try #require(made.string("code"))
            #expect(code.count == 8)

            let paired = try await http.call(.post, "/api/v1/pair", json: #"{"code":"\#(code.lowercased())","device_name":"Scale","kind":"scale"}"#)
            #expect(paired.status == .created)
            let key = try #require(paired.string("api_key"))
            #expect(try await http.call(.get, "/api/v1/ingest/whoami", token: key).status == .ok)
            let again = try await http.call(.post, "/api/v1/pair", json: #"{"code":"\#(code)","device_name":"Thief"}"#)
            #expect(again.status == .unauthorized)

            let late = try #require(try await http.call(.post, "/api/v1/devices/pairing-codes", token: token).string("code"))
            harness.clock.advance(by: 10 * 60 + 1)
            #expect(try await http.call(.post, "/api/v1/pair", json: #"{"code":"\#(late)","device_name":"Late"}"#).status == .unauthorized)
        }
    }

    @Test func wrongPairingCodesAreThrottledLikeWrongPasswords() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("guess@example.com").string("access_token"))
            let code = try #require(try await http.call(.post, "/api/v1/devices/pairing-codes", token: token).string("code"))
            for _ in 0..<5 {
                #expect(try await http.call(.post, "/api/v1/pair", json: #"{"code":"AAAAAAAA","device_name":"Guess"}"#).status == .unauthorized)
            }
            let throttled = try await http.call(.post, "/api/v1/pair", json: #"{"code":"\#(code)","device_name":"Guess"}"#)
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.headers[.retryAfter] != nil)
        }
    }

    @Test func idempotencyKeysReplayPerUser() async throws {
        try await AppHarness.with { harness, http in
            let a = try #require(try await http.register("ida@example.com").string("access_token"))
            let b = try #require(try await http.register("idb@example.com").string("access_token"))
            let key: HTTPFields = [.init("Idempotency-Key")!: "create-watch-1"]
            let first = try await http.call(.post, "/api/v1/devices", token: a, headers: key, json: #"{"name":"Watch","kind":"watch"}"#)
            let replay = try await http.call(.post, "/api/v1/devices", token: a, headers: key, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(first.status == .created)
            #expect(replay.status == .created)
            #expect(replay.string("id") == first.string("id"))
            #expect(replay.headers[.init("Idempotent-Replayed")!] == "true")
            // A client whose first answer was lost gets the key again, whole (issue 9) ...
            let apiKey = try #require(first.string("api_key"))
            #expect(replay.string("api_key") == apiKey)
            #expect(replay.text == first.text)
            // ... while the table holds neither the key nor the client's Idempotency-Key in the clear.
            let stored = try await harness.client.query("""
                SELECT key, convert_from(body, 'UTF8'), encode(sealed_body, 'escape') FROM idempotency_keys
                """)
            var rows = 0
            for try await (storedKey, body, sealed) in stored.decode((String, String, String?).self) {
                rows += 1
                #expect(storedKey != "create-watch-1")
                #expect(!body.contains("lld_"))
                #expect(sealed != nil && !(sealed ?? "").contains("lld_"))
            }
            #expect(rows == 1)
            // After the replay window the sealed copy is gone: a replay says what was created, without the key.
            try await harness.client.query("UPDATE idempotency_keys SET sealed_body = NULL")
            let late = try await http.call(.post, "/api/v1/devices", token: a, headers: key, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(late.string("id") == first.string("id"))
            #expect(late.string("api_key") == nil)
            let other = try await http.call(.post, "/api/v1/devices", token: a, headers: key, json: #"{"name":"Ring","kind":"ring"}"#)
            #expect(other.status == .unprocessableContent)
            // Keys are per user: B's request with the same key is B's own.
            let forB = try await http.call(.post, "/api/v1/devices", token: b, headers: key, json: #"{"name":"Watch","kind":"watch"}"#)
            #expect(forB.status == .created)
            #expect(forB.string("id") != first.string("id"))
            let listA = try await http.call(.get, "/api/v1/devices", token: a)
            #expect((listA.object["items"] as? [Any])?.count == 1)
            // A failed request keeps no record: the same key may be used again once it is fixed.
            let badKey: HTTPFields = [.init("Idempotency-Key")!: "fix-me"]
            #expect(try await http.call(.post, "/api/v1/devices", token: a, headers: badKey, json: #"{"name":"","kind":"watch"}"#).status == .unprocessableContent)
            #expect(try await http.call(.post, "/api/v1/devices", token: a, headers: badKey, json: #"{"name":"Fixed","kind":"watch"}"#).status == .created)
            // A replay carries the first answer's ETag, so the client can go on with If-Match.
            let taskKey: HTTPFields = [.init("Idempotency-Key")!: "task-1"]
            let task = try await http.call(.post, "/api/v1/tasks", token: a, headers: taskKey, json: #"{"title":"Once"}"#)
            let again = try await http.call(.post, "/api/v1/tasks", token: a, headers: taskKey, json: #"{"title":"Once"}"#)
            #expect(task.headers[.eTag] != nil)
            #expect(again.headers[.eTag] == task.headers[.eTag])
            #expect(again.string("id") == task.string("id"))
        }
    }
}
