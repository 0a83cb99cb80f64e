import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import Projections

/// Pulse Health's health webhook. Its source is private: what is known of it is what its
/// author published (README "Connecting your apps" lists it, and what was inferred). It posts
/// every ~30 minutes to `POST /api/health?key=<key>` in Health Auto Export's envelope with the
/// metric names `step_count`, `heart_rate`, `resting_heart_rate`, `heart_rate_variability`,
/// `active_energy` (converted to kJ before sending), `blood_oxygen_saturation`,
/// `walking_running_distance`, `respiratory_rate` and `sleep_analysis` (segments, or the
/// night's summary `{"totalSleep", "deep", "rem", "core", "awake", "inBedStart", "sleepEnd",
/// "source"}` in hours), and shows `GET /api/health/latest`, `/api/health/readiness` and
/// `/api/health/heatmap`. The key is a lifelog device key; the reads take it too (or a session).
public struct PulseClient: ClientAdapter {
    public static let name = "Pulse"
    public static let openAPIPart = "pulse"
    let health: HealthService
    let sessions: SessionService

    public init(_ context: AreaContext) {
        health = context.services.health
        sessions = context.accounts.sessions
    }

    /// The sender's name when a point names none.
    static let sender = HealthSource(name: "Pulse", kind: .phone)

    /// The webhook's body: the envelope (`{"data": {"metrics": [...]}}`), or a night's summary alone.
    static func decode(_ data: Data, _ body: Any) throws(HealthFormatError) -> HealthIntake {
        guard let object = body as? [String: Any] else { throw HealthFormatError("the body must be a JSON object") }
        // The night's fields keep their types whichever form the body takes (the envelope does not read them).
        for key in ["inBedStart", "sleepEnd", "source"] where object[key] != nil && !(object[key] is String) {
            throw HealthFormatError("\(key) must be a string")
        }
        for key in ["totalSleep", "deep", "rem", "core", "awake"] where object[key] != nil && HealthAutoExportFormat.number(object[key]) == nil {
            throw HealthFormatError("\(key) must be a number of hours")
        }
        guard object["data"] != nil || object["metrics"] != nil || object["workouts"] != nil else { return try PulseFormat.decode(data) }
        var intake = try HealthAutoExportFormat.decode(data)
        for index in intake.samples.indices {
            // Pulse converts active energy to kilojoules before sending it.
            if intake.samples[index].metric == HealthMetric.activeEnergy.rawValue, intake.samples[index].unit == nil {
                intake.samples[index].unit = "kJ"
            }
            if intake.samples[index].source.name == "Health Auto Export" { intake.samples[index].source = sender }
        }
        for index in intake.sleep.indices where intake.sleep[index].source.name == "Health Auto Export" { intake.sleep[index].source = sender }
        return intake
    }

    public func register(on router: RouterGroup<AppRequestContext>) {
        let health = self.health, sessions = self.sessions
        router.post("api/health") { request, context in
            let identity = try await ClientCredential.identity(context, appKey: nil, sessions: sessions)
            let (data, body) = try await ClientBody.json(request, context: context)
            let intake = try Self.decode(data, body)
            return HealthIngestionDTO(try await ClientIngestion.ingest(health, identity, context, intake, format: "pulse"))
        }
        let reads = router.group("api/health")
        // lifelog's newest readings, and at the top level the names Pulse's model reads: the
        // user's local day's steps, distance and active energy (the day readiness counts too),
        // and the newest SpO2, respiratory rate, heart rate, resting heart rate and HRV.
        reads.get("latest") { _, context in
            let owner = try await ClientCredential.identity(context, appKey: nil, sessions: sessions).userId
            let today = try await health.logicalToday(owner)
            async let latest = health.latest(owner)
            async let days = health.days(owner, from: today, to: today, metrics: [.steps, .distance, .activeEnergy])
            return try ClientJSON(Self.latest(today: today, newest: try await latest, day: try await days))
        }
        // The recovery score of the user's local day, as `GET /api/v1/health/recovery` answers
        // it, and that day's steps: the same local day `latest` counts.
        reads.get("readiness") { request, context in
            let owner = try await ClientCredential.identity(context, appKey: nil, sessions: sessions).userId
            let language = try await RequestLanguage.resolve(request) { try await health.language(owner) }
            let today = try await health.logicalToday(owner)
            async let recovery = health.recovery(owner, from: today, to: today)
            async let days = health.days(owner, from: today, to: today, metrics: [.steps])
            let (scores, checkIns) = try await recovery
            let score = scores.first ?? RecoveryFormula.score(date: today, inputs: RecoveryInputs())
            return try ClientJSON(Self.readiness(score, checkIn: checkIns[today], steps: try await days.first?.value, language: language))
        }
        // Levels 0–4 per day from the daily read model, as `GET /api/v1/health/heatmap`.
        reads.get("heatmap") { request, context in
            let owner = try await ClientCredential.identity(context, appKey: nil, sessions: sessions).userId
            let metric = try request.query("metric").map { raw in
                guard let metric = HealthMetric(rawValue: raw) ?? HealthAutoExportFormat.metrics[raw] else {
                    throw ValidationFailure("metric", "must be one of \(HealthMetric.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return metric
            } ?? .steps
            let days = try request.query("days").map { raw in
                guard let days = Int(raw), (1...400).contains(days) else { throw ValidationFailure("days", "must be a whole number from 1 to 400") }
                return days
            } ?? 365
            let today = try await health.logicalToday(owner)
            let from = today.adding(days: -(days - 1))
            return try ClientJSON(Self.heatmap(metric, from: from, to: today, cells: try await health.heatmap(owner, metric: metric, from: from, to: today)))
        }
    }

    /// `latest`: lifelog's newest readings (`items`), and the names Pulse reads at the top level.
    static func latest(today: LocalDate, newest: [HealthReadModel.Latest], day: [HealthDay]) -> [String: Any] {
        func daily(_ metric: HealthMetric) -> Any { day.first { $0.metric == metric }.map { HealthFigures.rounded($0.value) as Any } ?? NSNull() }
        func reading(_ metric: HealthMetric) -> Any { newest.first { $0.metric == metric }.map { HealthFigures.rounded($0.value) as Any } ?? NSNull() }
        return [
            "date": today.description,
            "steps": daily(.steps), "distance": daily(.distance), "activeEnergy": daily(.activeEnergy),
            "spo2": reading(.spo2), "respiratoryRate": reading(.respiratoryRate), "heartRate": reading(.heartRate),
            "restingHeartRate": reading(.restingHeartRate), "hrv": reading(.hrvSdnn),
            "units": ["steps": "count", "distance": "m", "activeEnergy": "kcal", "spo2": "%", "respiratoryRate": "count/min",
                      "heartRate": "count/min", "restingHeartRate": "count/min", "hrv": "ms"],
            "items": newest.map { latest -> [String: Any] in
                ["metric": latest.metric.rawValue, "value": HealthFigures.rounded(latest.value), "unit": latest.metric.unit,
                 "start": Self.instant(latest.start), "end": Self.instant(latest.end), "source": latest.source]
            },
        ]
    }

    /// `readiness`: the recovery answer of lifelog's API, and the day's steps.
    static func readiness(_ score: RecoveryScore, checkIn: HealthReadModel.CheckIn?, steps: Double?, language: Language) -> [String: Any] {
        var answer = (try? JSONSerialization.jsonObject(with: Data(RecoveryDTO(score, checkIn: checkIn, language: language).jsonText.utf8)))
            as? [String: Any] ?? [:]
        answer["steps"] = steps.map { HealthFigures.rounded($0) as Any } ?? NSNull()
        return answer
    }

    static func heatmap(_ metric: HealthMetric, from: LocalDate, to: LocalDate, cells: [HealthHeatmap.Cell]) -> [String: Any] {
        [
            "metric": metric.rawValue, "unit": metric.unit, "from": from.description, "to": to.description,
            "days": cells.map { cell -> [String: Any] in
                ["date": cell.date.description, "value": cell.value.map { HealthFigures.rounded($0) as Any } ?? NSNull(), "level": cell.level]
            },
        ]
    }

    static func instant(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
