import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import Projections

struct HealthIngestionDTO: ResponseEncodable {
    var received: Int
    var inserted: Int
    var updated: Int
    var duplicates: Int
    var deleted: Int
    var rejected: Int
    var skipped: Int
    var errors: [HealthItemError]
    /// `transaction/global`, the form `min_position` takes.
    var position: String?

    init(_ report: HealthIngestionReport) {
        received = report.received
        inserted = report.inserted
        updated = report.updated
        duplicates = report.duplicates
        deleted = report.deleted
        rejected = report.rejected
        skipped = report.skipped
        errors = report.errors
        position = report.position?.description
    }
}

struct HealthDayDTO: Encodable, Sendable {
    var date: String
    var metric: String
    var value: Double
    var unit: String
    var min: Double?
    var max: Double?
    var source: String?
    var samples: Int
    var decidedBy: String

    init(_ day: HealthDay) {
        date = day.date.description
        metric = day.metric.rawValue
        value = HealthFigures.rounded(day.value)
        unit = day.metric.unit
        min = day.min.map(HealthFigures.rounded)
        max = day.max.map(HealthFigures.rounded)
        source = day.source
        samples = day.samples
        decidedBy = day.decidedBy.rawValue
    }
}

struct HealthDailyDTO: ResponseEncodable {
    var asOfPosition: String
    var days: [HealthDayDTO]
}

struct HealthLatestDTO: Encodable, Sendable {
    var metric: String
    var value: Double
    var unit: String
    var start: Date
    var end: Date
    var source: String

    init(_ latest: HealthReadModel.Latest) {
        metric = latest.metric.rawValue
        value = HealthFigures.rounded(latest.value)
        unit = latest.metric.unit
        start = Date(timeIntervalSince1970: TimeInterval(latest.start))
        end = Date(timeIntervalSince1970: TimeInterval(latest.end))
        source = latest.source
    }
}

struct SleepNightDTO: ResponseEncodable {
    struct Segment: Encodable, Sendable {
        var stage: String
        var start: Date
        var end: Date
    }

    var date: String
    var asleepMinutes: Int
    var inBedMinutes: Int
    var awakeMinutes: Int
    var coreMinutes: Int
    var deepMinutes: Int
    var remMinutes: Int
    var start: Date
    var end: Date
    var source: String
    var segments: [Segment]

    init(_ night: SleepNight) {
        date = night.date.description
        asleepMinutes = night.asleepMinutes
        inBedMinutes = night.inBedMinutes
        awakeMinutes = night.awakeMinutes
        coreMinutes = night.coreMinutes
        deepMinutes = night.deepMinutes
        remMinutes = night.remMinutes
        start = Date(timeIntervalSince1970: TimeInterval(night.startSeconds))
        end = Date(timeIntervalSince1970: TimeInterval(night.endSeconds))
        source = night.source
        segments = night.segments.map {
            Segment(stage: $0.stage.rawValue, start: Date(timeIntervalSince1970: TimeInterval($0.startSeconds)),
                    end: Date(timeIntervalSince1970: TimeInterval($0.endSeconds)))
        }
    }
}

struct SleepNightsDTO: ResponseEncodable {
    var asOfPosition: String
    var items: [SleepNightDTO]
}

struct WorkoutDTO: Encodable, Sendable {
    var uuid: String?
    var type: String
    var date: String
    var start: Date
    var end: Date
    var durationSeconds: Int64
    var activeEnergyKcal: Double?
    var distanceM: Double?
    var avgHeartRate: Double?
    var source: String

    init(_ record: HealthRecord) {
        uuid = record.uuid
        type = record.name
        date = record.date.description
        start = record.start
        end = record.end
        durationSeconds = record.endSeconds - record.startSeconds
        activeEnergyKcal = record.workout?.activeEnergyKcal.map(HealthFigures.rounded)
        distanceM = record.workout?.distanceM.map(HealthFigures.rounded)
        avgHeartRate = record.workout?.avgHeartRate.map(HealthFigures.rounded)
        source = record.source.name
    }
}

struct HealthHeatmapDTO: ResponseEncodable {
    struct Cell: Encodable, Sendable {
        var date: String
        var value: Double?
        var level: Int
    }

    var metric: String
    var unit: String
    var asOfPosition: String
    var days: [Cell]
}

struct HealthTrendDTO: ResponseEncodable {
    var metric: String
    var unit: String
    var days: Int
    var from: String
    var to: String
    var mean: Double?
    var previousMean: Double?
    var change: Double?
    var changePercent: Double?
    var baselineMean: Double?
    var baselineDays: Int
    var asOfPosition: String

    init(_ trend: HealthTrend, asOf: LogPosition) {
        metric = trend.metric.rawValue
        unit = trend.unit
        days = trend.days
        from = trend.from.description
        to = trend.to.description
        mean = trend.mean.map(HealthFigures.rounded)
        previousMean = trend.previousMean.map(HealthFigures.rounded)
        change = trend.change.map(HealthFigures.rounded)
        changePercent = trend.changePercent.map(HealthFigures.rounded)
        baselineMean = trend.baselineMean.map(HealthFigures.rounded)
        baselineDays = trend.baselineDays
        asOfPosition = asOf.description
    }
}

struct SourcePriorityDTO: ResponseEncodable {
    var order: [String]
    init(_ priority: HealthSourcePriority) { order = priority.order.map(\.rawValue) }
}

struct SourcePriorityBody: Decodable {
    var order: [String]
}

struct ManualValueBody: Decodable {
    var value: Double
    var unit: String?
}

struct ManualValueDTO: ResponseEncodable {
    var metric: String
    var date: String
    var value: Double
    var unit: String
    var position: String?
}

/// A read asked for with `min_position` that the read models have not reached yet: 202, so
/// the client asks again (after `Retry-After`) instead of reading stale figures.
struct NotYetDTO: ResponseEncodable {
    var status = "pending"
    var minPosition: String
    var asOfPosition: String
}

enum HealthFigures {
    /// Figures as clients show them: three decimals are more than any device measures.
    static func rounded(_ value: Double) -> Double { (value * 1_000).rounded() / 1_000 }
}
