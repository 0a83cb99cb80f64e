import Core
import Domain
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import Projections

/// health-sync (Dzarlax-AI/health-sync), the iPhone app that uploads HealthKit to a
/// health_dashboard server: its base URL is lifelog's root and its API key a lifelog device key
/// (`POST /api/v1/devices` → `api_key`), sent as `X-API-Key`. Uploads go to `/health` and
/// `/health/workouts`; its screens read `/api/*` (CONTRACTS §1).
public struct HealthSyncClient: ClientAdapter {
    public static let name = "HealthSync"
    public static let openAPIPart = "health-sync"
    let health: HealthService
    let sessions: SessionService
    let profiles: ProfileService

    public init(_ context: AreaContext) {
        health = context.services.health
        sessions = context.accounts.sessions
        profiles = context.accounts.profiles
    }

    /// Where a refused read is sent: the app treats any redirect as "check your API key" and
    /// shows its target (CONTRACTS §1.1: its own server redirects to a login page). It never
    /// follows it; lifelog's device keys are made here.
    static let keysPage = "/api/v1/devices"

    public func register(on router: RouterGroup<AppRequestContext>) {
        registerUploads(router)
        let api = router.group("api")
        registerBriefings(api)
        registerHistories(api)
        registerMetrics(api)
    }

    /// The connection test and the uploads: metrics and workouts.
    func registerUploads(_ router: RouterGroup<AppRequestContext>) {
        let health = self.health, sessions = self.sessions
        // The connection test: 2xx, JSON, {"status":"ok"}, for a valid key only.
        router.get("health") { _, context in
            _ = try await ClientCredential.identity(context, appKey: nil, sessions: sessions)
            return try ClientJSON(["status": "ok"])
        }
        router.post("health") { request, context in
            let identity = try await ClientCredential.identity(context, appKey: nil, sessions: sessions)
            let (_, body) = try await ClientBody.json(request, context: context)
            let intake = try HealthSyncFormat.decodeMetrics(body)
            let report = try await Self.ingest(health, identity, context, intake)
            return try ClientJSON(Self.acknowledgement(report, receipt: try await health.receipt(identity.userId, report)))
        }
        router.post("health/workouts") { request, context in
            let identity = try await ClientCredential.identity(context, appKey: nil, sessions: sessions)
            let (_, body) = try await ClientBody.json(request, context: context)
            let (intake, sent) = try HealthSyncFormat.decodeWorkouts(body)
            let report = try await Self.ingest(health, identity, context, intake)
            var answer = Self.acknowledgement(report, receipt: try await health.receipt(identity.userId, report))
            // Stored now or before counts as ingested; the app re-sends the day while any failed.
            let failed = max(0, sent - (report.inserted + report.updated + report.duplicates))
            answer["ingested"] = sent - failed
            answer["failed"] = failed
            return try ClientJSON(answer)
        }
    }

    /// `/api/settings`, the briefings, the day's insights, the sections.
    func registerBriefings(_ api: RouterGroup<AppRequestContext>) {
        let health = self.health, sessions = self.sessions, profiles = self.profiles
        api.get("settings") { request, context in
            try await Self.read(request, context, sessions) { owner in
                return try ClientJSON(HealthSyncReads.settings(try await profiles.user(owner).profile))
            }
        }
        api.get("health-briefing") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let (language, today) = try await Self.languageAndToday(request, owner, health)
                let (briefing, _, _) = try await health.briefing(owner, date: today, language: language)
                let score = try await health.recoveryScores(owner, from: today, to: today).first
                return try ClientJSON(HealthSyncReads.briefing(briefing, score: score ?? Self.unscored(today), language: language))
            }
        }
        api.get("ai-briefing") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let (language, today) = try await Self.languageAndToday(request, owner, health)
                let (briefing, _, _) = try await health.briefing(owner, date: today, language: language)
                return try ClientJSON(HealthSyncReads.aiBriefing(briefing, language: language))
            }
        }
        api.get("today-insights") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let (language, today) = try await Self.languageAndToday(request, owner, health)
                let (briefing, _, _) = try await health.briefing(owner, date: today, language: language)
                let score = try await health.recoveryScores(owner, from: today, to: today).first ?? Self.unscored(today)
                let snapshot = try await health.waitForDays(nil).asOf.description
                return try ClientJSON(HealthSyncReads.todayInsights(briefing, score: score, snapshot: snapshot, language: language))
            }
        }
        api.get("sections") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let language = try await RequestLanguage.resolve(request) { try await health.language(owner) }
                return try ClientJSON(HealthSyncReads.sections(language))
            }
        }
        api.get("section/{key}") { request, context in
            try await Self.read(request, context, sessions) { owner in
                guard let key = context.parameters.get("key").flatMap(Briefing.SectionKey.init(rawValue:)) else {
                    throw Problem.notFound("No such section; the sections are \(Briefing.SectionKey.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                let (language, today) = try await Self.languageAndToday(request, owner, health)
                let (briefing, _, _) = try await health.briefing(owner, date: today, language: language)
                return try ClientJSON(HealthSyncReads.section(key, briefing: briefing, language: language))
            }
        }
    }

    /// `/api/readiness-history` and `/api/energy-history`.
    func registerHistories(_ api: RouterGroup<AppRequestContext>) {
        let health = self.health, sessions = self.sessions
        api.get("readiness-history") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let days = try Self.days(request, default: 30)
                let today = try await health.logicalToday(owner)
                let scores = try await health.recoveryScores(owner, from: today.adding(days: -(days - 1)), to: today)
                return try ClientJSON(HealthSyncReads.readinessHistory(scores))
            }
        }
        // lifelog computes no energy bank: the history is the empty list the app's model allows.
        api.get("energy-history") { request, context in
            try await Self.read(request, context, sessions) { _ in
                let granularity = request.query("granularity") ?? "day"
                guard ["day", "hour"].contains(granularity) else { throw ValidationFailure("granularity", "must be day or hour") }
                _ = try Self.days(request, default: 14)
                if let hours = request.query("hours"), !(Int(hours).map { (1...720).contains($0) } ?? false) {
                    throw ValidationFailure("hours", "must be a whole number from 1 to 720")
                }
                return try ClientJSON(["granularity": granularity, "points": [Any]()] as [String: Any])
            }
        }
    }

    /// `/api/metrics`: which metrics there are, their data and their range.
    func registerMetrics(_ api: RouterGroup<AppRequestContext>) {
        let health = self.health, sessions = self.sessions
        api.get("metrics") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let language = try await RequestLanguage.resolve(request) { try await health.language(owner) }
                let (spans, nights) = try await health.spans(owner)
                return try ClientJSON(HealthSyncReads.metricList(spans, nights: nights, language: language))
            }
        }
        api.get("metrics/data") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let named = try Self.named(request)
                let bucket = request.query("bucket") ?? "day"
                guard bucket == "day" else { throw ValidationFailure("bucket", "must be day (lifelog keeps one figure per day)") }
                let (from, to) = try await Self.range(request, owner, health)
                let bySource = ["1", "true"].contains(request.query("by_source") ?? "")
                switch named {
                case .metric(let app):
                    let days = try await health.days(owner, from: from, to: to, metrics: [app.metric])
                    return try ClientJSON(HealthSyncReads.metricData(app, days: days, bySource: bySource))
                case .sleep(let name, let hours):
                    let nights = try await health.nights(owner, from: from, to: to)
                    return try ClientJSON(HealthSyncReads.sleepData(name, hours: hours, nights: nights, bySource: bySource))
                }
            }
        }
        api.get("metrics/range") { request, context in
            try await Self.read(request, context, sessions) { owner in
                let named = try Self.named(request)
                let (spans, nights) = try await health.spans(owner)
                let span: (first: LocalDate, last: LocalDate)? = switch named {
                case .metric(let app): spans.first { $0.metric == app.metric }.map { ($0.first, $0.last) }
                case .sleep: nights.map { ($0.first, $0.last) }
                }
                return try ClientJSON(["min": span?.first.description ?? "", "max": span?.last.description ?? ""])
            }
        }
    }

    static func ingest(_ health: HealthService, _ identity: Identity, _ context: AppRequestContext, _ intake: HealthIntake) async throws -> HealthIngestionReport {
        try await ClientIngestion.ingest(health, identity, context, intake, format: "health_sync")
    }

    /// What the app requires (`status: "ok"`, a positive integer `id`, no `error`), and lifelog's counts.
    static func acknowledgement(_ report: HealthIngestionReport, receipt: Int64) -> [String: Any] {
        [
            "status": "ok", "id": receipt,
            "received": report.received, "inserted": report.inserted, "updated": report.updated, "duplicates": report.duplicates,
            "rejected": report.rejected, "skipped": report.skipped,
            "errors": report.errors.map { ["index": $0.index, "field": $0.field, "message": $0.message] as [String: Any] },
        ]
    }

    /// A read for the app: the caller's user, or the redirect the app reads as "check your key".
    static func read(_ request: Request, _ context: AppRequestContext, _ sessions: SessionService,
                     _ body: (UUID) async throws -> ClientJSON) async throws -> Response {
        let owner: UUID
        do {
            owner = try await ClientCredential.identity(context, appKey: nil, sessions: sessions).userId
        } catch let refused as AuthError where refused.status == 401 {
            return Response(status: .found, headers: [.location: keysPage])
        }
        return try await body(owner).response(from: request, context: context)
    }

    static func languageAndToday(_ request: Request, _ owner: UUID, _ health: HealthService) async throws -> (Language, LocalDate) {
        async let language = RequestLanguage.resolve(request) { try await health.language(owner) }
        async let today = health.logicalToday(owner)
        return (try await language, try await today)
    }

    /// `?days=` (1–365).
    static func days(_ request: Request, default value: Int) throws -> Int {
        guard let raw = request.query("days") else { return value }
        guard let days = Int(raw), (1...365).contains(days) else { throw ValidationFailure("days", "must be a whole number from 1 to 365") }
        return days
    }

    static func named(_ request: Request) throws -> HealthSyncReads.Named {
        guard let name = request.query("metric"), !name.isEmpty else { throw ValidationFailure("metric", "is required") }
        guard let named = HealthSyncReads.named(name) else {
            throw Problem.notFound("lifelog keeps no metric \(name); it keeps "
                                   + (HealthSyncReads.metrics.map(\.name) + HealthSyncReads.sleepMetrics.map(\.name)).joined(separator: ", ") + ".")
        }
        return named
    }

    /// `from` and `to`, both included: by default the 30 days up to the logical today; at most 400 days.
    static func range(_ request: Request, _ owner: UUID, _ health: HealthService) async throws -> (LocalDate, LocalDate) {
        let to: LocalDate
        if let given = try request.queryDate("to") { to = given } else { to = try await health.logicalToday(owner) }
        let from = try request.queryDate("from") ?? to.adding(days: -29)
        guard from <= to else { throw ValidationFailure("from", "must not be after to") }
        guard from.days(until: to) < 400 else { throw ValidationFailure("to", "must be within 400 days of from") }
        return (from, to)
    }

    /// A date without a score row: nothing to say but that.
    static func unscored(_ date: LocalDate) -> RecoveryScore {
        RecoveryFormula.score(date: date, inputs: RecoveryInputs())
    }
}
