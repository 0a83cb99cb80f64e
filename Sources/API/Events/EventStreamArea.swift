import Core
import Crypto
import Domain
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import Projections

/// `GET /api/v1/events/stream`: the signed-in user's changes as server-sent events (issue 28),
/// for the dashboard and any client that wants to know when to read again.
///
/// - Each change is `id: <log position>`, `event: change`, `data: {"position", "area", "type",
///   "stream"}`: the area (habits, tasks, finance, savings, health, accounts) says what to read
///   again, and a health change's `position` is what the health reads' `min_position` takes.
/// - `Last-Event-ID` (or `?last_event_id=`) resumes after that position: what the user's log
///   holds after it comes first, then the live changes. More than 500 missed changes, or a
///   position that does not parse, give one `event: reset` (read everything again) instead.
/// - A comment line every 15 s (`: heartbeat`) keeps proxies and the client's watchdog awake.
/// - Only the caller's own events; authenticated by an access token (Authorization: Bearer) or
///   the browser's session cookie (`BrowserSession`); device keys are refused (403).
/// - It ends with `event: end` (`data: {"reason": "signed_out"}` or `"shutting_down"`) when the
///   session ends (sign-out, sign-out everywhere, a password change) and when the server begins
///   to shut down, well within the grace period; with `?timeout=N`, after N seconds (`"timeout"`:
///   for a client that polls, and for the fuzzer, which waits for whole answers).
public struct EventStreamArea: Area {
    public static let name = "Events"
    public static let projectors: [any Projector] = []
    public static let openAPIPart = "events"
    static let heartbeat: Duration = .seconds(15)
    static let maxCatchUp = 500

    let feed: ChangeFeed
    let shutdown: ShutdownDeadline
    let accounts: AccountService
    let client: PostgresClient
    let logger: Logger

    public init(_ context: AreaContext) {
        feed = context.changeFeed
        shutdown = context.shutdown
        accounts = context.accounts
        client = context.store.client
        logger = context.logger
    }

    enum Item: Sendable {
        case change(ChangeFeed.Change)
        case heartbeat
        case end(String)
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        // Over 60 lines: one route whose catch-up, live feed, timeout and heartbeat share the stream's state.
        let feed = self.feed, shutdown = self.shutdown, sessions = accounts.sessions, keys = accounts.requestFingerprintKeys
        let client = self.client, logger = self.logger
        api.get("events/stream") { request, context in
            let (userId, sessionId) = try await Self.caller(request, context, sessions: sessions, keys: keys)
            let resumeText = request.headers[.lastEventId] ?? request.query("last_event_id")
            let timeout = try request.query("timeout").map { raw in
                guard let seconds = Int(raw), (1...3_600).contains(seconds) else { throw ValidationFailure("timeout", "must be a whole number of seconds from 1 to 3600") }
                return Duration.seconds(seconds)
            }
            // Subscribed before the catch-up is read: nothing falls between the two.
            let live = feed.subscribe(userId: userId, sessionId: sessionId)
            var catchUp: [ChangeFeed.Change] = []
            var reset = false
            var resumedAfter: LogPosition?
            if let resumeText {
                if let position = LogPosition(text: resumeText.trimmingCharacters(in: .whitespaces)) {
                    catchUp = try await ChangeFeed.read(client, after: position, owner: userId, limit: Self.maxCatchUp + 1, logger: logger)
                    if catchUp.count > Self.maxCatchUp { (catchUp, reset) = ([], true) } else { resumedAfter = position }
                } else {
                    reset = true
                }
            }
            let headers: HTTPFields = [
                .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", .xAccelBuffering: "no",
            ]
            let (replay, resetFirst, resumed) = (catchUp, reset, resumedAfter)
            let body = ResponseBody { writer in
                var order = StreamOrder(resumedAfter: resumed)
                for change in replay { order.sent(change.position) }
                var opening = "retry: 2000\n: connected\n\n"
                if resetFirst { opening += "event: reset\ndata: {}\n\n" }
                for change in replay { opening += Self.frame(change) }
                try await writer.write(ByteBuffer(string: opening))
                let (items, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(10_000))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await change in live { continuation.yield(.change(change)) }
                        // The feed ended the subscription: the session ended (or the feed stopped).
                        continuation.yield(.end("signed_out"))
                        continuation.finish()
                    }
                    group.addTask {
                        try await shutdown.began()
                        continuation.yield(.end("shutting_down"))
                        continuation.finish()
                    }
                    if let timeout {
                        group.addTask {
                            try await Task.sleep(for: timeout)
                            continuation.yield(.end("timeout"))
                            continuation.finish()
                        }
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: Self.heartbeat)
                            continuation.yield(.heartbeat)
                        }
                    }
                    defer { group.cancelAll() }
                    for await item in items {
                        switch item {
                        case .change(let change):
                            switch order.take(change.position) {
                            case .duplicate: continue
                            case .send: try await writer.write(ByteBuffer(string: Self.frame(change)))
                            case .outOfOrder:
                                logger.warning("the change feed delivered a change after a later one; sent anyway", metadata: [
                                    "position": "\(change.position)", "last_sent": "\(order.last.map(String.init(describing:)) ?? "")",
                                ])
                                try await writer.write(ByteBuffer(string: Self.frame(change, withId: false)))
                            }
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        case .end(let reason):
                            try await writer.write(ByteBuffer(string: "event: end\ndata: {\"reason\":\"\(reason)\"}\n\n"))
                            continuation.finish()
                        }
                    }
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    /// A change's frame; `withId` false for one sent out of order, so that the client's
    /// `Last-Event-ID` stays the newest position it has.
    static func frame(_ change: ChangeFeed.Change, withId: Bool = true) -> String {
        let data = #"{"area":"\#(change.area)","position":"\#(change.position)","stream":"\#(escaped(change.streamId))","type":"\#(escaped(change.type))"}"#
        return (withId ? "id: \(change.position)\n" : "") + "event: change\ndata: \(data)\n\n"
    }

    /// Stream ids and types are ASCII the server made; anything else is dropped rather than trusted.
    static func escaped(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }.map(Character.init))
    }

    /// Who is asking: an access token's user and session, or the session the browser's stream
    /// cookie names (while it is open, and only from this origin).
    static func caller(_ request: Request, _ context: AppRequestContext, sessions: SessionService, keys: [SymmetricKey]) async throws -> (UUID, UUID) {
        switch context.identity {
        case .user(let userId, let sessionId)?:
            return (userId, sessionId)
        case .device?:
            throw AuthError.forbidden("device keys may only call ingestion routes")
        case nil:
            if let failure = context.authFailure { throw failure }
            guard let value = BrowserSession.cookie(BrowserSession.streamCookie, in: request) else {
                throw AuthError.unauthenticated("send an access token as Authorization: Bearer, or open the stream from the signed-in dashboard")
            }
            // A cross-site EventSource does not get the Strict cookie; this is the second lock.
            if let site = request.headers[.secFetchSite], site != "same-origin" {
                throw AuthError.forbidden("this request came from another site (Sec-Fetch-Site: \(site.prefix(40)))")
            }
            guard let sessionId = BrowserSession.streamSession(value, keys: keys),
                  let userId = try await sessions.openSession(sessionId)
            else { throw AuthError.unauthenticated("the session has ended; sign in again") }
            return (userId, sessionId)
        }
    }
}
