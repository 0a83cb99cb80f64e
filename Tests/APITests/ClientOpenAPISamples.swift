// @testable: the adapters' answer builders are internal.
@testable import API
@testable import Core
@testable import Domain
import EventStore
import Foundation
@testable import Projections
import Testing

extension OpenAPITests {
    /// A sample of every answer of the phone apps' adapters (issue 27), built by the functions the
    /// routes answer with.
    static func clientSamples() throws -> [Sample] {
        let day = try #require(LocalDate("2026-11-23"))
        func raw(_ name: String, _ route: String, status: String = "200", full: Bool = false, _ object: Any) throws -> Sample {
            Sample(name: name, route: route, status: status, json: try ClientJSON.serialize(object), full: full)
        }
        let error = HealthItemError(index: 0, field: "data.metrics[0].data[0].date", message: "is not a date")
        let report = HealthIngestionReport(received: 3, inserted: 1, updated: 0, duplicates: 1, deleted: 0, rejected: 1, skipped: 0,
                                           errors: [error], position: LogPosition(transactionId: 7, globalPosition: 42))
        var workouts = HealthSyncClient.acknowledgement(report, receipt: 42)
        (workouts["ingested"], workouts["failed"]) = (2, 1)

        // A scored briefing with every section, and a calibrating one with none.
        var inputs = RecoveryInputs()
        for offset in 1...20 {
            inputs.sleepMinutes[day.adding(days: -offset)] = Double(400 + offset)
            inputs.hrvMs[day.adding(days: -offset)] = Double(40 + offset % 5)
            inputs.restingHeartRate[day.adding(days: -offset)] = Double(55 + offset % 3)
        }
        (inputs.sleepMinutes[day], inputs.hrvMs[day], inputs.restingHeartRate[day]) = (450, 45, 54)
        let scored = RecoveryFormula.score(date: day, inputs: inputs)
        let night = SleepNight(date: day, asleepMinutes: 450, inBedMinutes: 470, awakeMinutes: 20, coreMinutes: 300, deepMinutes: 60,
                               remMinutes: 90, startSeconds: 0, endSeconds: 0, source: "Watch", segments: [])
        var days: [HealthMetric: [LocalDate: Double]] = [.steps: [:], .restingHeartRate: [:], .bodyMass: [day: 70]]
        for offset in 0...20 {
            days[.steps]?[day.adding(days: -offset)] = Double(8_000 + offset * 10)
            days[.restingHeartRate]?[day.adding(days: -offset)] = Double(55 + offset % 3)
        }
        let briefing = BriefingComposer.compose(BriefingInputs(date: day, recovery: scored, nights: [day: night], days: days, feeling: 4), language: .en)
        let empty = RecoveryFormula.score(date: day, inputs: RecoveryInputs())
        let bare = BriefingComposer.compose(BriefingInputs(date: day, recovery: empty, nights: [:], days: [:], feeling: nil), language: .sr)
        #expect(scored.score != nil && briefing.sections.count == 5)

        let dayFigure = HealthDay(date: day, metric: .heartRate, value: 64, min: 51, max: 131, source: "Watch", samples: 3, decidedBy: .samples)
        let steps = HealthDay(date: day, metric: .steps, value: 8_432, source: nil, samples: 1, decidedBy: .summary)
        let span = HealthReadModel.MetricSpan(metric: .steps, days: 20, first: day.adding(days: -19), last: day)
        let latest = HealthReadModel.Latest(metric: .spo2, value: 97, start: 1_790_000_000, end: 1_790_000_000, source: "Watch")
        let checkIn = HealthReadModel.CheckIn(date: day, feeling: 4, note: "fine")
        let profile = UserProfile.new(email: "ana@example.com", name: "Ana", timezone: "Europe/Belgrade", language: .ru, currency: "EUR")

        return [
            // health-sync
            try raw("health-sync connection test", "GET /health", ["status": "ok"]),
            try raw("health-sync upload", "POST /health", HealthSyncClient.acknowledgement(report, receipt: 42)),
            try raw("health-sync workouts", "POST /health/workouts", full: true, workouts),
            try raw("health-sync settings", "GET /api/settings", full: true, HealthSyncReads.settings(profile)),
            try raw("health-sync briefing", "GET /api/health-briefing", HealthSyncReads.briefing(briefing, score: scored, language: .en)),
            try raw("health-sync briefing (calibrating)", "GET /api/health-briefing", HealthSyncReads.briefing(bare, score: empty, language: .sr)),
            try raw("health-sync AI briefing", "GET /api/ai-briefing", full: true, HealthSyncReads.aiBriefing(briefing, language: .ru)),
            try raw("health-sync AI briefing (no data)", "GET /api/ai-briefing", HealthSyncReads.aiBriefing(bare, language: .en)),
            try raw("health-sync today insights", "GET /api/today-insights", full: true,
                    HealthSyncReads.todayInsights(briefing, score: scored, snapshot: "7/42", language: .en)),
            try raw("health-sync readiness history", "GET /api/readiness-history", full: true, HealthSyncReads.readinessHistory([scored, empty])),
            try raw("health-sync energy history", "GET /api/energy-history", full: true, ["granularity": "day", "points": [Any]()] as [String: Any]),
            try raw("health-sync metrics", "GET /api/metrics", full: true,
                    HealthSyncReads.metricList([span], nights: (days: 20, first: day.adding(days: -19), last: day), language: .en)),
            try raw("health-sync metric data", "GET /api/metrics/data", full: true,
                    HealthSyncReads.metricData(try #require(HealthSyncReads.appMetric(.heartRate)), days: [dayFigure], bySource: true)),
            try raw("health-sync metric data (summary)", "GET /api/metrics/data",
                    HealthSyncReads.metricData(try #require(HealthSyncReads.appMetric(.steps)), days: [steps], bySource: false)),
            try raw("health-sync sleep data", "GET /api/metrics/data",
                    HealthSyncReads.sleepData("sleep_total", hours: { Double($0.asleepMinutes) / 60 }, nights: [night], bySource: true)),
            try raw("health-sync metric range", "GET /api/metrics/range", full: true, ["min": "2026-11-01", "max": "2026-11-23"]),
            try raw("health-sync sections", "GET /api/sections", full: true, HealthSyncReads.sections(.sr)),
            try raw("health-sync section (recovery)", "GET /api/section/{key}", HealthSyncReads.section(.recovery, briefing: briefing, language: .en)),
            try raw("health-sync section (activity)", "GET /api/section/{key}", HealthSyncReads.section(.activity, briefing: briefing, language: .ru)),
            try raw("health-sync section (no data)", "GET /api/section/{key}", HealthSyncReads.section(.body, briefing: bare, language: .sr)),
            // GymDashSync
            try raw("GymDashSync pairing", "POST /pair", full: true, GymDashSyncClient.paired(clientId: "lld_x", deviceId: UUID(), at: Date())),
            try raw("GymDashSync steps", "POST /api/ingest/steps", full: true, GymDashSyncClient.answer(report)),
            try raw("GymDashSync update", "PUT /api/ingest/workouts", full: true, GymDashSyncClient.answer(report)),
            try raw("GymDashSync existing", "POST /api/ingest/workouts/query", full: true, [["uuid": "7B8CCFC7-EF94-51A2-8856-3F4A73ED17F4"]]),
            // HealthPush
            try raw("HealthPush sync", "POST /api/v1/ingest/healthpush", full: true, HealthPushClient.answer(report)),
            // Pulse
            try sample("Pulse upload", "POST /api/health", "200", full: true, HealthIngestionDTO(report)),
            try raw("Pulse latest", "GET /api/health/latest", full: true, PulseClient.latest(today: day, newest: [latest], day: [steps])),
            try raw("Pulse latest (nothing yet)", "GET /api/health/latest", PulseClient.latest(today: day, newest: [], day: [])),
            try raw("Pulse readiness", "GET /api/health/readiness", PulseClient.readiness(scored, checkIn: checkIn, steps: 8_432, language: .en)),
            try raw("Pulse readiness (calibrating)", "GET /api/health/readiness", PulseClient.readiness(empty, checkIn: nil, steps: nil, language: .sr)),
            try raw("Pulse heatmap", "GET /api/health/heatmap", full: true,
                    PulseClient.heatmap(.steps, from: day, to: day, cells: HealthHeatmap.cells(from: day, to: day, values: [day: 8_432]))),
        ]
    }
}
