import API
import AsyncHTTPClient
import Core
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import PostgresNIO
import Testing
import TestSupport

/// The web dashboard's server side (issue 28): its files and headers, the cookie session and its
/// Origin check, and the event stream. The page itself is tested in a real Chromium
/// (`Tests/Browser`, run by `.ci/run`).
@Suite struct DashboardTests {
    static let origin = "http://localhost"
    static let host = HTTPField.Name("Host")!

    // MARK: - Files and headers

    @Test func thePageIsServedWithAStrictPolicyAndItsAssetsAreCachedForAYear() async throws {
        try await AppHarness.with { _, http in
            let page = try await http.call(.get, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-cache")
            let policy = try #require(page.headers[HTTPField.Name("Content-Security-Policy")!])
            for part in ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"] { #expect(policy.contains(part)) }
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(page.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(!page.text.contains("{{version}}"), "the page names its assets' version")
            // No inline script: every script is a module file of this origin.
            #expect(!page.text.contains("<script>") && page.text.contains("<script type=\"module\" src=\"/assets/"))
            let asset = try #require(page.text.range(of: #"/assets/[0-9a-f]+/app\.js"#, options: .regularExpression).map { String(page.text[$0]) })
            let script = try await http.call(.get, asset, headers: [.acceptEncoding: "gzip"])
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let etag = try #require(script.headers[.eTag])
            let again = try await http.call(.get, asset, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            // The API's answers carry the same headers.
            let labels = try await http.call(.get, "/api/v1/labels")
            #expect(labels.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(labels.headers[HTTPField.Name("Content-Security-Policy")!] != nil)
        }
    }

    @Test func largeJSONReadsAreCompressedWhenTheClientAcceptsGzip() async throws {
        try await AppHarness.with { _, http in
            let plain = try await http.call(.get, "/api/v1/labels")
            let zipped = try await http.execute(uri: "/api/v1/labels", method: .get, headers: [.acceptEncoding: "gzip, deflate"], body: nil) { $0 }
            #expect(zipped.status == .ok)
            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(zipped.body.readableBytes < plain.text.utf8.count / 2)
            #expect(plain.headers[.contentEncoding] == nil)
        }
    }

    @Test func theLabelsHoldTheDashboardsWordsInEveryLanguage() async throws {
        try await AppHarness.with { _, http in
            let en = try await http.call(.get, "/api/v1/labels?lang=en").object["labels"] as? [String: String] ?? [:]
            #expect(en["dash.email"] == "Email" && en["dash.password"] == "Password" && en["dash.sign_in"] == "Sign in")
            #expect(en["dash.create_account"] == "Create account" && en["dash.sign_out"] == "Sign out")
            for (key, word) in [("today", "Today"), ("habits", "Habits"), ("tasks", "Tasks"), ("finance", "Finance"), ("savings", "Savings"),
                                ("health", "Health"), ("settings", "Settings")] {
                #expect(en["dash.nav.\(key)"] == word)
            }
            let sr = try await http.call(.get, "/api/v1/labels?lang=sr").object["labels"] as? [String: String] ?? [:]
            #expect(sr["dash.nav.habits"] == "Navike")
            #expect(Set(sr.keys) == Set(en.keys))
        }
    }

    // MARK: - The cookie session

    static func cookies(_ response: JSONResponse) -> [String] { response.headers[values: .setCookie] }

    static func value(_ name: String, in cookies: [String]) -> String? {
        cookies.first { $0.hasPrefix("\(name)=") }.map { String($0.dropFirst(name.count + 1).prefix { $0 != ";" }) }
    }

    /// Today's first visit in one round trip (issue 28): the refresh asked with `?first=today`
    /// answers Today's reads and the words as their own routes do; another page is 422.
    @Test func aRefreshForTodayBringsItsReadsAsTheirRoutesAnswerThem() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now) { _, http in
            let registered = try await http.call(.post, "/api/v1/auth/browser/register", headers: [.origin: Self.origin, Self.host: "localhost"],
                json: #"{"email":"first@example.com","password":"correct horse battery","name":"Ana","timezone":"Europe/Belgrade","language":"sr"}"#)
            let access = try #require(registered.string("access_token"))
            _ = try await http.call(.post, "/api/v1/habits", token: access, json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"}}"#)
            var cookie = try #require(Self.value("lifelog_refresh", in: Self.cookies(registered)))
            func refresh(_ query: String, gzip: Bool = false) async throws -> JSONResponse {
                var headers: HTTPFields = [.origin: Self.origin, Self.host: "localhost", .cookie: "lifelog_refresh=\(cookie)"]
                if gzip { headers[.acceptEncoding] = "gzip" }
                let answer = try await http.call(.post, "/api/v1/auth/browser/refresh\(query)", headers: headers)
                if let next = Self.value("lifelog_refresh", in: Self.cookies(answer)) { cookie = next }
                return answer
            }
            #expect(try await refresh("?first=habits").fieldErrors == ["first"])
            #expect(try await refresh("").object["first_view"] == nil)
            let answer = try await refresh("?first=today")
            #expect(answer.status == .ok, "\(answer.text)")
            let first = try #require(answer.object["first_view"] as? [String: Any])
            // Its token is in a header, not in the body, which may be compressed (BREACH).
            #expect(answer.object["access_token"] == nil)
            let token = try #require(answer.headers[HTTPField.Name("X-Access-Token")!])
            // The words of the user's language, as GET /labels?lang= gives them.
            let labels = try #require(first["labels"] as? [String: Any])
            let asked = try await http.call(.get, "/api/v1/labels?lang=sr")
            #expect(labels["lang"] as? String == "sr")
            #expect(NSDictionary(dictionary: labels["labels"] as? [String: Any] ?? [:]).isEqual(to: asked.object["labels"] as? [String: Any] ?? [:]))
            // Each read as its own route answers it.
            let reads = try #require(first["reads"] as? [String: Any])
            for path in ["/today", "/health/briefing", "/health/quality?status=open", "/health/recovery"] {
                let own = try await http.call(.get, "/api/v1" + path, token: token)
                #expect(own.status == .ok)
                #expect(NSDictionary(dictionary: reads[path] as? [String: Any] ?? [:]).isEqual(to: own.object), "\(path)")
            }
            #expect((reads["/today"] as? [String: Any])?["habits"].map { "\($0)".contains("Read") } == true)
            // Large, and without its token: sent gzip'ed to a client that takes it.
            let zipped = try await refresh("?first=today", gzip: true)
            #expect(zipped.headers[.contentEncoding] == "gzip" && zipped.headers[HTTPField.Name("X-Access-Token")!] != nil)
        }
    }

    @Test func signingInSetsAStrictHttpOnlyRefreshCookieAndNeverSendsTheRefreshToken() async throws {
        try await AppHarness.with { _, http in
            let registered = try await http.call(.post, "/api/v1/auth/browser/register", headers: [.origin: Self.origin, Self.host: "localhost"],
                json: #"{"email":"ana@example.com","password":"correct horse battery","name":"Ana","timezone":"Europe/Belgrade"}"#)
            #expect(registered.status == .created, "\(registered.text)")
            #expect(registered.object["refresh_token"] == nil)
            let access = try #require(registered.string("access_token"))
            let cookies = Self.cookies(registered)
            let refresh = try #require(cookies.first { $0.hasPrefix("lifelog_refresh=") })
            for part in ["HttpOnly", "SameSite=Strict", "Path=/api/v1/auth"] { #expect(refresh.contains(part)) }
            #expect(!refresh.contains("Secure"), "plain http on loopback")
            let stream = try #require(cookies.first { $0.hasPrefix("lifelog_session=") })
            #expect(stream.contains("Path=/api/v1/events") && stream.contains("HttpOnly") && stream.contains("SameSite=Strict"))
            #expect(try await http.call(.get, "/api/v1/me", token: access).status == .ok)

            // The cookie is spent for a new one; the old one again ends the session.
            let token = try #require(Self.value("lifelog_refresh", in: cookies))
            let refreshed = try await http.call(.post, "/api/v1/auth/browser/refresh", headers: [.origin: Self.origin, Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"])
            #expect(refreshed.status == .ok)
            #expect(refreshed.object["refresh_token"] == nil)
            #expect((refreshed.object["user"] as? [String: Any])?["email"] as? String == "ana@example.com")
            let next = try #require(Self.value("lifelog_refresh", in: Self.cookies(refreshed)))
            #expect(next != token)
            let replayed = try await http.call(.post, "/api/v1/auth/browser/refresh", headers: [.origin: Self.origin, Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"])
            #expect(replayed.status == .unauthorized)
            #expect(Self.cookies(replayed).contains { $0.hasPrefix("lifelog_refresh=;") && $0.contains("Max-Age=0") })

            // Behind a proxy that says https, the cookies are Secure.
            let secure = try await http.call(.post, "/api/v1/auth/browser/login",
                headers: [.origin: "https://life.example.com", HTTPField.Name("X-Forwarded-Host")!: "life.example.com", HTTPField.Name("X-Forwarded-Proto")!: "https"],
                json: #"{"email":"ana@example.com","password":"correct horse battery"}"#)
            #expect(secure.status == .ok)
            #expect(Self.cookies(secure).allSatisfy { $0.contains("; Secure") })
        }
    }

    @Test func aCookieAuthenticatedWriteFromAnotherSiteIsRefused() async throws {
        try await AppHarness.with { _, http in
            let registered = try await http.call(.post, "/api/v1/auth/browser/register", headers: [.origin: Self.origin, Self.host: "localhost"],
                json: #"{"email":"bo@example.com","password":"correct horse battery","name":"Bo","timezone":"UTC"}"#)
            let token = try #require(Self.value("lifelog_refresh", in: Self.cookies(registered)))
            for headers: HTTPFields in [
                [.origin: "https://evil.example", Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"],
                [.origin: "null", Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"],
                [Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"],
                [.origin: Self.origin, Self.host: "localhost", HTTPField.Name("Sec-Fetch-Site")!: "cross-site", .cookie: "lifelog_refresh=\(token)"],
            ] {
                for path in ["/api/v1/auth/browser/refresh", "/api/v1/auth/browser/logout"] {
                    let answer = try await http.call(.post, path, headers: headers)
                    #expect(answer.status == .forbidden, "\(path) \(headers)")
                    #expect(Self.cookies(answer).isEmpty)
                }
            }
            // The cookie still works from the page's own origin: nothing was spent or ended.
            let ok = try await http.call(.post, "/api/v1/auth/browser/refresh", headers: [.origin: Self.origin, Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"])
            #expect(ok.status == .ok)
        }
    }

    @Test func signingOutEndsTheSessionAndRemovesBothCookies() async throws {
        try await AppHarness.with { _, http in
            let registered = try await http.call(.post, "/api/v1/auth/browser/register", headers: [.origin: Self.origin, Self.host: "localhost"],
                json: #"{"email":"cy@example.com","password":"correct horse battery","name":"Cy","timezone":"UTC"}"#)
            let access = try #require(registered.string("access_token"))
            let token = try #require(Self.value("lifelog_refresh", in: Self.cookies(registered)))
            // A flag that is neither true nor false is refused, and the session goes on.
            let unclear = try await http.call(.post, "/api/v1/auth/browser/logout?everywhere=", headers: [.origin: Self.origin, Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"])
            #expect(unclear.status == .unprocessableContent)
            #expect(try await http.call(.get, "/api/v1/me", token: access).status == .ok)
            let out = try await http.call(.post, "/api/v1/auth/browser/logout", headers: [.origin: Self.origin, Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"])
            #expect(out.status == .noContent)
            #expect(Self.cookies(out).count == 2 && Self.cookies(out).allSatisfy { $0.contains("Max-Age=0") })
            #expect(try await http.call(.get, "/api/v1/me", token: access).status == .unauthorized)
            #expect(try await http.call(.post, "/api/v1/auth/browser/refresh", headers: [.origin: Self.origin, Self.host: "localhost", .cookie: "lifelog_refresh=\(token)"]).status == .unauthorized)
        }
    }

    // MARK: - The event stream

    /// A live server with the change feed following the log, and a client that reads the stream.
    /// Its passwords are hashed on a pool of its own: the live client gives up after 20 s without
    /// an answer, and under the whole suite the shared pool has every other test's hashes queued.
    static func withLiveServer(_ body: @Sendable (any TestClientProtocol, Int, AppDependencies) async throws -> Void) async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        try await TestDatabase.withAppClient { _, client in
            let dependencies = try await AppDependencies.forTests(client: client, changeFeedPoll: .milliseconds(50), hasher: PasswordHasher(pool: pool))
            let app = buildApplication(dependencies)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await dependencies.changeFeed.follow() }
                try await app.test(.live) { http in try await body(http, try #require(http.port), dependencies) }
                group.cancelAll()
            }
        }
    }

    /// Reads server-sent events until `until` says stop or `seconds` pass; answers what was read.
    static func read(port: Int, token: String? = nil, headers extra: [(String, String)] = [], seconds: Double = 5,
                     until: @escaping @Sendable (String) -> Bool) async throws -> (status: UInt, text: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/events/stream")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(seconds) + 5))
        guard response.status == .ok else { return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20))) }
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                var text = ""
                for try await part in response.body {
                    text += String(buffer: part)
                    if until(text) { return text }
                }
                return text
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return (200, first ?? "(timed out)")
        }
    }

    @Test func theStreamCarriesTheUsersOwnChangesAndResumesFromLastEventID() async throws {
        try await Self.withLiveServer { http, port, _ in
            let ana = try #require(try await http.register("ana@example.com").string("access_token"))
            let bo = try #require(try await http.register("bo@example.com").string("access_token"))
            let habit = try #require(try await http.call(.post, "/api/v1/habits", token: ana, json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"}}"#).string("id"))
            // A change after the stream opened arrives as one event; the other user's change does not.
            async let anaStream = Self.read(port: port, token: ana) { $0.contains("habit.logged") }
            async let boStream = Self.read(port: port, token: bo, seconds: 3) { $0.contains("habit.") }
            try await Task.sleep(for: .milliseconds(600))
            _ = try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: ana, json: "{}")
            let seen = try await anaStream
            #expect(seen.status == 200)
            #expect(seen.text.contains("event: change") && seen.text.contains(#""area":"habits""#) && seen.text.contains("habit.logged"))
            // Bo may see his own registration (committed as the stream opened), never Ana's habit.
            #expect(try await !boStream.text.contains("habit."))

            // Resuming from the habit's creation replays the log after it.
            let created = try #require(seen.text.components(separatedBy: "\n").first { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) })
            _ = try await http.call(.post, "/api/v1/tasks", token: ana, json: #"{"title":"Pay rent"}"#)
            let resumed = try await Self.read(port: port, token: ana, headers: [("Last-Event-ID", created)]) { $0.contains("task.created") }
            #expect(resumed.text.contains("task.created"))
            #expect(!resumed.text.contains("id: \(created)\n"), "what the client had is not sent again")
            // An id that is not a position gives a reset.
            let reset = try await Self.read(port: port, token: ana, headers: [("Last-Event-ID", "nonsense")]) { $0.contains("event: reset") }
            #expect(reset.text.contains("event: reset"))
            // A device key, or nothing, is refused.
            #expect(try await Self.read(port: port) { _ in true }.status == 401)
        }
    }

    @Test func theStreamEndsWhenItsSessionSignsOut() async throws {
        try await Self.withLiveServer { http, port, dependencies in
            let registered = try await http.call(.post, "/api/v1/auth/browser/register", headers: [.origin: "http://localhost"],
                json: #"{"email":"dee@example.com","password":"correct horse battery","name":"Dee","timezone":"UTC"}"#)
            let access = try #require(registered.string("access_token"))
            let cookies = Self.cookies(registered)
            let refresh = try #require(Self.value("lifelog_refresh", in: cookies))
            let session = try #require(Self.value("lifelog_session", in: cookies))
            // Opened with the session cookie, as an EventSource would.
            async let stream = Self.read(port: port, headers: [("Cookie", "lifelog_session=\(session)")], seconds: 20) { $0.contains("event: end") }
            // Subscribed once its session is checked (a loaded machine can take more than a moment).
            for _ in 0..<50 where dependencies.changeFeed.subscriberCount == 0 { try await Task.sleep(for: .milliseconds(100)) }
            #expect(dependencies.changeFeed.subscriberCount == 1)
            let started = ContinuousClock.now
            _ = try await http.call(.post, "/api/v1/auth/browser/logout",
                                    headers: [.origin: "http://localhost", .cookie: "lifelog_refresh=\(refresh)"])
            let ended = try await stream
            #expect(ended.text.contains(#"event: end"#) && ended.text.contains("signed_out"), "\(ended.text)")
            #expect(ContinuousClock.now - started < .seconds(3))
            // The cookie of an ended session opens nothing.
            #expect(try await Self.read(port: port, headers: [("Cookie", "lifelog_session=\(session)")]) { _ in true }.status == 401)
            _ = access
        }
    }
    /// A change another transaction held behind the frontier reaches the stream as soon as that
    /// transaction ends, though its end sends no notification: before, it waited for the feed's
    /// next poll (a second in `serve`; the dashboard benchmark's 1.2 s outliers).
    @Test func aChangeHeldBehindTheFrontierArrivesWhenTheFrontierMovesNotAtTheNextPoll() async throws {
        try await TestDatabase.withAppClient { _, client in
            // A poll far beyond the test's patience: only the feed's own look-again can deliver.
            let dependencies = try await AppDependencies.forTests(client: client, changeFeedPoll: .seconds(120))
            let feed = dependencies.changeFeed
            try await buildApplication(dependencies).test(.router) { http in
                let token = try #require(try await http.register("held@example.com").string("access_token"))
                let owner = try #require(UUID(uuidString: try await http.call(.get, "/api/v1/me", token: token).string("id") ?? ""))
                let habit = try #require(try await http.call(.post, "/api/v1/habits", token: token, json: #"{"name":"Walk","kind":"boolean","schedule":{"type":"daily"}}"#).string("id"))
                let logger = TestDatabase.logger
                let holding = Flag(), release = Flag()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await feed.follow() }
                    let changes = feed.subscribe(userId: owner, sessionId: UUID())
                    // The feed's first read places it at the head.
                    for _ in 0..<500 where !feed.isFollowing { try await Task.sleep(for: .milliseconds(10)) }
                    #expect(feed.isFollowing)
                    // A transaction with an id older than the log's next event, open across it.
                    group.addTask {
                        try await client.withConnection { connection in
                            try await connection.run("BEGIN", logger: logger)
                            try await connection.run("SELECT pg_current_xact_id()", logger: logger)
                            holding.raise()
                            while !release.isRaised { try await Task.sleep(for: .milliseconds(10)) }
                            try await connection.run("COMMIT", logger: logger)
                        }
                    }
                    while !holding.isRaised { try await Task.sleep(for: .milliseconds(5)) }
                    #expect(try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: token, json: "{}").status == .created)
                    // The commit's notification: the feed reads, and the event is behind the frontier.
                    feed.poke()
                    try await Task.sleep(for: .milliseconds(300))
                    let released = ContinuousClock.now
                    release.raise()
                    let seen = try await withThrowingTaskGroup(of: String?.self) { waiting in
                        waiting.addTask {
                            for await change in changes where change.type == "habit.logged" { return change.type }
                            return nil
                        }
                        waiting.addTask { try await Task.sleep(for: .seconds(10)); return nil }
                        let first = try await waiting.next() ?? nil
                        waiting.cancelAll()
                        return first
                    }
                    #expect(seen == "habit.logged", "the change did not arrive within 10 s of the frontier moving")
                    #expect(ContinuousClock.now - released < .seconds(3))
                    group.cancelAll()
                }
            }
        }
    }
}

