// @testable: the DTOs and the views they are made from are internal.
@testable import API
@testable import Core
@testable import Domain
import EventStore
import Foundation
import Testing

extension OpenAPITests {
    /// A sample of every health response DTO not sampled beside the recovery and the briefing,
    /// and the dashboard's cookie session.
    static func healthSamples() throws -> [Sample] {
        let date = try #require(LocalDate("2026-11-23"))
        let asOf = LogPosition(transactionId: 812, globalPosition: 4_051)
        func day(full: Bool) -> HealthDayDTO {
            HealthDayDTO(HealthDay(date: date, metric: .heartRate, value: 62.5, min: full ? 48 : nil, max: full ? 151 : nil,
                                   source: full ? "Apple Watch" : nil, samples: 1_204, decidedBy: .samples))
        }
        let night = SleepNightDTO(SleepNight(
            date: date, asleepMinutes: 432, inBedMinutes: 470, awakeMinutes: 38, coreMinutes: 250, deepMinutes: 80, remMinutes: 102,
            startSeconds: 1_795_300_000, endSeconds: 1_795_328_200, source: "Apple Watch",
            segments: [.init(stage: .deep, startSeconds: 1_795_300_000, endSeconds: 1_795_304_800)]))
        func trend(full: Bool) -> HealthTrendDTO {
            HealthTrendDTO(HealthTrend(metric: .restingHeartRate, unit: "count/min", days: 7, from: date.adding(days: -6), to: date,
                                       mean: full ? 55.2 : nil, previousMean: full ? 56 : nil, change: full ? -0.8 : nil,
                                       changePercent: full ? -1.4 : nil, baselineMean: full ? 55.9 : nil, baselineDays: full ? 28 : 0),
                           asOf: asOf)
        }
        return [
            try sample("Daily", "GET /api/v1/health/daily", "200", full: true,
                       HealthDailyDTO(asOfPosition: asOf.description, days: [day(full: true)])),
            try sample("Daily (no optionals)", "GET /api/v1/health/daily", "200", full: false,
                       HealthDailyDTO(asOfPosition: asOf.description, days: [day(full: false)])),
            try sample("Not yet", "GET /api/v1/health/daily", "202", full: true,
                       NotYetDTO(minPosition: "900/5000", asOfPosition: asOf.description)),
            try sample("Heatmap", "GET /api/v1/health/heatmap", "200", full: true,
                       HealthHeatmapDTO(metric: "steps", unit: "count", asOfPosition: asOf.description,
                                        days: [.init(date: date.description, value: 8_200, level: 3)])),
            try sample("Heatmap (a day without a figure)", "GET /api/v1/health/heatmap", "200", full: false,
                       HealthHeatmapDTO(metric: "steps", unit: "count", asOfPosition: asOf.description,
                                        days: [.init(date: date.description, value: nil, level: 0)])),
            try sample("Trend", "GET /api/v1/health/trends", "200", full: true, trend(full: true)),
            try sample("Trend (no optionals)", "GET /api/v1/health/trends", "200", full: false, trend(full: false)),
            try sample("Night", "GET /api/v1/health/sleep/{date}", "200", full: true, night),
            try sample("Nights", "GET /api/v1/health/sleep", "200", full: true, SleepNightsDTO(asOfPosition: asOf.description, items: [night])),
            try sample("Source priority", "GET /api/v1/health/source-priority", "200", full: true,
                       SourcePriorityDTO(HealthSourcePriority(order: HealthSourceKind.allCases))),
            try sample("Manual value", "PUT /api/v1/health/manual/{metric}/{date}", "200", full: true,
                       ManualValueDTO(metric: "body_mass", date: date.description, value: 72.4, unit: "kg", position: asOf.description)),
            try sample("Manual value (no position)", "PUT /api/v1/health/manual/{metric}/{date}", "200", full: false,
                       ManualValueDTO(metric: "body_mass", date: date.description, value: 72.4, unit: "kg", position: nil)),
        ]
    }
}
