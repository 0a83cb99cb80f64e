import API
import Core
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import Synchronization
import Testing
import TestSupport

/// The one command path every area shares: concurrent identical commands store their events
/// exactly once, conflicts are retried rather than answered 409, commands that change nothing
/// store nothing, and a retried request (same Idempotency-Key) never does the work twice.
@Suite struct CommandPathTests {
    static let now = ISO8601DateFormatter().date(from: "2026-05-06T10:00:00Z") ?? Date(timeIntervalSince1970: 0)

    struct User {
        var token: String
        var id: UUID
    }

    func register(_ http: any TestClientProtocol, _ email: String) async throws -> User {
        let answer = try await http.register(email)
        let user = try #require(answer.object["user"] as? [String: Any])
        return User(token: try #require(answer.string("access_token")), id: try #require(UUID(uuidString: user["id"] as? String ?? "")))
    }

    /// How many events of `type` the user's streams hold.
    func events(_ type: String, of user: User, _ client: PostgresClient) async throws -> Int {
        for try await count in try await client.query("""
            SELECT count(*)::int FROM events WHERE owner_id = \(user.id) AND event_type = \(type)
            """, logger: TestDatabase.logger).decode(Int.self) { return count }
        return 0
    }

    /// Sends `request` `times` times at once and returns the statuses.
    func atOnce(_ times: Int, _ request: @escaping @Sendable () async throws -> HTTPResponse.Status) async throws -> [HTTPResponse.Status] {
        try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
            for _ in 0..<times { group.addTask { try await request() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func concurrentIdenticalCommandsStoreTheirEventsOnceInEveryArea() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "race@example.com")
            let token = user.token
            let habit = try #require(try await http.call(.post, "/api/v1/habits", token: token,
                                                         json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-05-01"}"#).string("id"))
            // Habits: eight logs of one day, eight freezes of one range, eight archives.
            let logs = try await atOnce(8) { try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: token, json: "{}").status }
            #expect(logs.allSatisfy { $0 == .created }, "\(logs)")
            #expect(try await events("habit.logged", of: user, harness.client) == 1)
            let freezes = try await atOnce(8) {
                try await http.call(.post, "/api/v1/habits/\(habit)/freezes", token: token, json: #"{"from":"2026-05-02","to":"2026-05-03"}"#).status
            }
            #expect(freezes.allSatisfy { $0 == .created }, "\(freezes)")
            #expect(try await events("habit.freeze_added", of: user, harness.client) == 1)
            let archives = try await atOnce(8) { try await http.call(.delete, "/api/v1/habits/\(habit)", token: token).status }
            #expect(archives.allSatisfy { $0 == .noContent }, "\(archives)")
            #expect(try await events("habit.archived", of: user, harness.client) == 1)

            // Tasks: eight completes make one completion and one next occurrence.
            let task = try #require(try await http.call(.post, "/api/v1/tasks", token: token,
                                                        json: #"{"title":"Stand-up","due_date":"2026-05-06","repeat":{"every":"day"}}"#).string("id"))
            let completes = try await atOnce(8) { try await http.call(.post, "/api/v1/tasks/\(task)/complete", token: token).status }
            #expect(completes.allSatisfy { $0 == .ok }, "\(completes)")
            #expect(try await events("task.completed", of: user, harness.client) == 1)
            #expect(try await events("task.created", of: user, harness.client) == 2)

            // Accounts: eight identical profile changes are one change; eight revocations one.
            let profiles = try await atOnce(8) {
                try await http.call(.patch, "/api/v1/me", token: token, json: #"{"day_start_hour":4}"#).status
            }
            #expect(profiles.allSatisfy { $0 == .ok }, "\(profiles)")
            #expect(try await events("user.profile_changed", of: user, harness.client) == 1)
            let device = try #require(try await http.call(.post, "/api/v1/devices", token: token, json: #"{"name":"Watch","kind":"watch"}"#).string("id"))
            let revokes = try await atOnce(8) { try await http.call(.delete, "/api/v1/devices/\(device)", token: token).status }
            #expect(revokes.filter { $0 == .noContent }.count == 1, "\(revokes)")
            #expect(revokes.filter { $0 == .notFound }.count == 7, "\(revokes)")
            #expect(try await events("device.revoked", of: user, harness.client) == 1)
        }
    }

    /// Without If-Match, concurrent different changes all land: a conflict is decided again on
    /// fresh state, never a 409 the client did nothing to cause.
    @Test func concurrentDifferentChangesAllLandWithoutIfMatch() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "many@example.com")
            let token = user.token
            let habit = try #require(try await http.call(.post, "/api/v1/habits", token: token,
                                                         json: #"{"name":"Walk","kind":"numeric","target":10,"unit":"km","schedule":{"type":"daily"},"start_date":"2026-05-01"}"#).string("id"))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for day in 1...6 {
                    group.addTask {
                        try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: token, json: #"{"date":"2026-05-0\#(day)","value":2}"#).status
                    }
                    group.addTask {
                        try await http.call(.patch, "/api/v1/habits/\(habit)", token: token, json: #"{"name":"Walk \#(day)"}"#).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .ok || $0 == .created }, "\(statuses)")
            #expect(try await events("habit.logged", of: user, harness.client) == 6)
            #expect(try await events("habit.changed", of: user, harness.client) == 6)
            let read = try await http.call(.get, "/api/v1/habits/\(habit)", token: token)
            #expect(read.headers[.eTag] == "\"13\"")
        }
    }

    @Test func commandsThatChangeNothingStoreNothing() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "noop@example.com")
            let token = user.token
            let created = try await http.call(.post, "/api/v1/habits", token: token,
                                              json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-05-01"}"#)
            let habit = try #require(created.string("id"))
            #expect(created.headers[.eTag] == "\"1\"")
            for _ in 0..<3 {
                let removed = try await http.call(.delete, "/api/v1/habits/\(habit)/logs/2026-05-03", token: token)
                #expect(removed.status == .ok)
                #expect(removed.object["version"] as? Int == 1)
            }
            #expect(try await events("habit.log_removed", of: user, harness.client) == 0)
            let first = try await http.call(.post, "/api/v1/habits/\(habit)/freezes", token: token, json: #"{"from":"2026-05-02","to":"2026-05-03"}"#)
            let second = try await http.call(.post, "/api/v1/habits/\(habit)/freezes", token: token, json: #"{"from":"2026-05-02","to":"2026-05-03"}"#)
            #expect(first.string("freeze_id") != nil)
            #expect(first.string("freeze_id") == second.string("freeze_id"))
            #expect(try await events("habit.freeze_added", of: user, harness.client) == 1)
            for (from, to) in [("0001-01-01", "2026-05-03"), ("2026-05-02", "9999-12-31"), ("2026-04-30", "2026-05-01")] {
                let refused = try await http.call(.post, "/api/v1/habits/\(habit)/freezes", token: token, json: #"{"from":"\#(from)","to":"\#(to)"}"#)
                #expect(refused.status == .unprocessableContent, "\(from)..\(to)")
            }
            #expect(try await http.call(.patch, "/api/v1/habits/\(habit)", token: token, json: #"{"name":"Read"}"#).headers[.eTag] == "\"2\"")
            #expect(try await events("habit.changed", of: user, harness.client) == 0)
        }
    }

    /// A retry whose first attempt stored its events but never its answer (the server died in
    /// between) finds those events by the ids the key derives, and stores nothing again.
    @Test func aRetryAfterACrashFinishesTheFirstAttemptInsteadOfRepeatingIt() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "retry@example.com")
            let headers: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "create-task-1"]
            let first = try await http.call(.post, "/api/v1/tasks", token: user.token, headers: headers, json: #"{"title":"Once"}"#)
            #expect(first.status == .created)
            // The crash: the answer is lost, the claim stays as the dead request left it.
            try await harness.client.query("""
                UPDATE idempotency_keys SET status = NULL, body = NULL WHERE user_id = \(user.id)
                """, logger: TestDatabase.logger).collect()
            let retry = try await http.call(.post, "/api/v1/tasks", token: user.token, headers: headers, json: #"{"title":"Once"}"#)
            #expect(retry.status == .created)
            #expect(retry.string("id") == first.string("id"))
            #expect(try await events("task.created", of: user, harness.client) == 1)
            // Also when nothing of the first attempt's bookkeeping survived.
            try await harness.client.query("DELETE FROM idempotency_keys WHERE user_id = \(user.id)", logger: TestDatabase.logger).collect()
            let again = try await http.call(.post, "/api/v1/tasks", token: user.token, headers: headers, json: #"{"title":"Once"}"#)
            #expect(again.string("id") == first.string("id"))
            #expect(try await events("task.created", of: user, harness.client) == 1)
            // Another key is another request: the same body makes a second task.
            let other = try await http.call(.post, "/api/v1/tasks", token: user.token, headers: [HTTPField.Name("Idempotency-Key")!: "create-task-2"], json: #"{"title":"Once"}"#)
            #expect(other.status == .created)
            #expect(other.string("id") != first.string("id"))
            #expect(try await events("task.created", of: user, harness.client) == 2)
        }
    }

    /// If-Match is one entity-tag (RFC 9110; a bare version number names the same version): a well-formed tag of another version is 412, which
    /// a reload fixes; a header that is no tag at all is a client's bug, 400 (issue 24: it was
    /// 412, which told the client to reload and try the same bytes again). Either changes nothing.
    @Test func aMalformedIfMatchIs400AndAForeignTag412() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "tags@example.com")
            let created = try await http.call(.post, "/api/v1/tasks", token: user.token, json: #"{"title":"Call"}"#)
            let id = try #require(created.string("id"))
            for tag in ["{}", "2\"", "\"3", "-1", "3a", "--z)`q#L%&F>Y", "\"a\"b\"", "\"1\" \"2\"", "w/\"1\""] {
                let answer = try await http.call(.patch, "/api/v1/tasks/\(id)", token: user.token, headers: [.ifMatch: tag], json: #"{"title":"X"}"#)
                #expect(answer.status == .badRequest, "If-Match: \(tag)")
                #expect(answer.headers[.contentType] == "application/problem+json")
            }
            for tag in ["\"9\"", "W/\"9\"", "9", "W/9", "\"abc\"", "\"\"", "\"-1\"", "\"99999999999999999999\""] {
                let answer = try await http.call(.patch, "/api/v1/tasks/\(id)", token: user.token, headers: [.ifMatch: tag], json: #"{"title":"X"}"#)
                #expect(answer.status == .preconditionFailed, "If-Match: \(tag)")
            }
            let version = try #require(created.headers[.eTag])
            // The tag, its weak form, or the bare number a client that left out the quotes sends.
            for tag in ["*", version, "W/\(version)", version.filter(\.isNumber)] {
                #expect(try await http.call(.patch, "/api/v1/tasks/\(id)", token: user.token, headers: [.ifMatch: tag], json: #"{"title":"Call"}"#).status == .ok)
            }
            #expect(try await http.call(.get, "/api/v1/tasks/\(id)", token: user.token).string("title") == "Call")
            #expect(try await events("task.changed", of: user, harness.client) == 0)
        }
    }

    /// A change the rules refuse is 422 whatever version it names: a reload would not make it
    /// valid, so a stale If-Match does not hide the reason behind a 412 (as a member's 403 is not).
    @Test func aChangeTheRulesRefuseIs422EvenWithAStaleIfMatch() async throws {
        try await AppHarness.with(now: Self.now) { _, http in
            let user = try await register(http, "refused@example.com")
            let created = try await http.call(.post, "/api/v1/habits", token: user.token,
                                              json: #"{"name":"Walk","kind":"numeric","target":5,"unit":"km","schedule":{"type":"daily"}}"#)
            let id = try #require(created.string("id"))
            #expect(try await http.call(.patch, "/api/v1/habits/\(id)", token: user.token, json: #"{"name":"Stroll"}"#).status == .ok)
            let stale = try #require(created.headers[.eTag])
            let refused = try await http.call(.patch, "/api/v1/habits/\(id)", token: user.token, headers: [.ifMatch: stale], json: #"{"target":1000000001}"#)
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.fieldErrors == ["target"])
            // A valid change on the stale version is still 412, and the habit keeps its target.
            let valid = try await http.call(.patch, "/api/v1/habits/\(id)", token: user.token, headers: [.ifMatch: stale], json: #"{"target":6}"#)
            #expect(valid.status == .preconditionFailed)
            #expect(try await http.call(.get, "/api/v1/habits/\(id)", token: user.token).object["target"] as? Double == 5)
        }
    }

    /// If-Match on a habit or task that is not there (or is another user's) is 404, not 412.
    @Test func ifMatchOnAMissingResourceIsNotFound() async throws {
        try await AppHarness.with(now: Self.now) { _, http in
            let user = try await register(http, "missing@example.com")
            let unknown = UUID().uuidString.lowercased()
            let ifMatch: HTTPFields = [.ifMatch: "\"1\""]
            #expect(try await http.call(.patch, "/api/v1/habits/\(unknown)", token: user.token, headers: ifMatch, json: #"{"name":"X"}"#).status == .notFound)
            #expect(try await http.call(.patch, "/api/v1/tasks/\(unknown)", token: user.token, headers: ifMatch, json: #"{"title":"X"}"#).status == .notFound)
        }
    }

    /// The accounts routes do work beside the log (a password hash, a session, a pairing code)
    /// that running twice would repeat: a retry while the first attempt still holds its claim
    /// waits, then hears 409 "in progress"; an area's command route runs the command instead,
    /// which finds the first attempt's events by their ids.
    @Test func aRetryBesideAnUnfinishedFirstAttemptIsSafeOnEveryRoute() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "inflight@example.com")
            let codeKey: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "code-1"]
            #expect(try await http.call(.post, "/api/v1/devices/pairing-codes", token: user.token, headers: codeKey).status == .created)
            try await harness.client.query("UPDATE idempotency_keys SET status = NULL, body = NULL WHERE user_id = \(user.id)",
                                           logger: TestDatabase.logger).collect()
            let retried = try await http.call(.post, "/api/v1/devices/pairing-codes", token: user.token, headers: codeKey)
            #expect(retried.status == .conflict)
            var codes = 0
            for try await count in try await harness.client.query("SELECT count(*)::int FROM pairing_codes WHERE user_id = \(user.id)",
                                                                  logger: TestDatabase.logger).decode(Int.self) { codes = count }
            #expect(codes == 1)
        }
    }

    /// Addresses stored before the stricter rule for new ones still log in and still change
    /// their profile: a stored address is never judged again.
    @Test func anAddressStoredBeforeTheStricterRuleStillWorks() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "legacy@example.com")
            try await harness.client.query("UPDATE rm_users SET email = 'jörg@exämple.de' WHERE user_id = \(user.id)",
                                           logger: TestDatabase.logger).collect()
            let login = try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"jörg@exämple.de","password":"correct horse battery"}"#)
            #expect(login.status == .ok)
            #expect(try await http.call(.patch, "/api/v1/me", token: user.token, json: #"{"name":"Jörg"}"#).status == .ok)
            let refused = try await http.register("jörg@exämple.com")
            #expect(refused.status == .unprocessableContent)
        }
    }

    @Test func habitListsArePagedWithAnOpaqueCursor() async throws {
        try await AppHarness.with(now: Self.now) { _, http in
            let user = try await register(http, "pages@example.com")
            var ids: [String] = []
            for name in ["One", "Two", "Three"] {
                ids.append(try #require(try await http.call(.post, "/api/v1/habits", token: user.token,
                                                            json: #"{"name":"\#(name)","kind":"boolean","schedule":{"type":"daily"}}"#).string("id")))
            }
            let first = try await http.call(.get, "/api/v1/habits?limit=2", token: user.token)
            let cursor = try #require(first.string("next_cursor"))
            let second = try await http.call(.get, "/api/v1/habits?limit=2&cursor=\(cursor)", token: user.token)
            let seen = ((first.object["items"] as? [[String: Any]] ?? []) + (second.object["items"] as? [[String: Any]] ?? [])).compactMap { $0["id"] as? String }
            #expect(seen == ids)
            #expect(second.object["next_cursor"] == nil)
            #expect(try await http.call(.get, "/api/v1/habits?cursor=bm90LWEtY3Vyc29y", token: user.token).status == .badRequest)
        }
    }

    /// A stored value the server cannot read is an error it logs, never silently a default: a
    /// zone read as GMT would move every "today" the user sees.
    @Test func anUnreadableStoredZoneIsAnErrorNotGMT() async throws {
        try await AppHarness.with(now: Self.now) { harness, http in
            let user = try await register(http, "corrupt@example.com")
            #expect(try await http.call(.get, "/api/v1/habits", token: user.token).status == .ok)
            try await harness.client.query("UPDATE rm_users SET timezone = 'Nowhere/Atlantis' WHERE user_id = \(user.id)",
                                           logger: TestDatabase.logger).collect()
            let read = try await http.call(.get, "/api/v1/habits", token: user.token)
            #expect(read.status == .internalServerError)
            #expect(read.headers[.contentType] == "application/problem+json")
        }
    }
}

/// A log handler that keeps what it is given, for tests that check what reaches a logger.
final class CapturedLogs: Sendable {
    let lines = Mutex<[String]>([])

    struct Handler: LogHandler {
        let sink: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            sink.lines.withLock { $0.append("\(level) \(message) \(metadata ?? [:])") }
        }
    }

    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "captured") { _ in Handler(sink: self) }
        logger.logLevel = level
        return logger
    }
}

@Suite struct CompositionRootTests {
    /// The configured logger (LOG_LEVEL) reaches every area's service and the event store they
    /// share: at trace level, each query logs through it. Authenticating a request alone logs a
    /// few lines; a habit or task request, whose queries all run through the area's service and
    /// the shared store, logs many more (before the composition root, those services made
    /// loggers of their own and only the authentication's lines arrived).
    @Test func theConfiguredLoggerReachesEveryAreasQueries() async throws {
        try await TestDatabase.withAppClient { _, client in
            let captured = CapturedLogs()
            let dependencies = try await AppDependencies.forTests(
                client: client, clock: MutableClock(CommandPathTests.now), logger: captured.logger(level: .trace))
            let app = buildApplication(dependencies)
            try await app.test(.router) { http in
                let token = try #require(try await http.register("logs@example.com").string("access_token"))
                func lines(_ request: () async throws -> Void) async throws -> Int {
                    captured.lines.withLock { $0.removeAll() }
                    try await request()
                    return captured.lines.withLock { $0.count }
                }
                let authenticated = try await lines { _ = try await http.call(.get, "/api/v1/me", token: token) }
                let habit = try await lines {
                    _ = try await http.call(.post, "/api/v1/habits", token: token, json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"}}"#)
                }
                let task = try await lines { _ = try await http.call(.post, "/api/v1/tasks", token: token, json: #"{"title":"Plan"}"#) }
                #expect(authenticated > 0)
                #expect(habit >= authenticated + 2, "\(habit) lines for a habit, \(authenticated) for authentication alone")
                #expect(task >= authenticated + 2, "\(task) lines for a task, \(authenticated) for authentication alone")
            }
        }
    }
}
