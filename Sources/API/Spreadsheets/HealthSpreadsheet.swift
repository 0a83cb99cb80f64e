import Core
import Domain
import Foundation
import Hummingbird
import NIOCore
import Projections

/// `GET /health/daily.csv?from&to&metrics=&min_position=`: each day's figure per metric (the
/// user's days, as `GET /health/daily` gives them), a year of days at a time, up to ten years in
/// one download.
enum HealthSpreadsheet {
    static let header = CSVText.line(["date", "metric", "value", "unit", "min", "max", "source", "samples"].map { .value($0) })
    static let maximumDays = 3_660

    static func register(_ reads: RouterGroup<UserRequestContext>, health: HealthService) {
        reads.get("daily.csv") { request, context in
            let metrics = try HealthArea.metrics(request)
            let owner = context.userId
            let given = try request.queryDate("to")
            let to = if let given { given } else { try await health.logicalToday(owner) }
            let from = try request.queryDate("from") ?? to.adding(days: -364)
            guard from <= to else { throw ValidationFailure("from", "must not be after to") }
            guard from.days(until: to) < maximumDays else { throw ValidationFailure("to", "must be within \(maximumDays) days of from") }
            // With `min_position`, as the JSON read: the figures include that write, or 202 "not yet".
            return try await HealthArea.read(request, context, health) { _ in CSVText.download(named: "health-daily-\(from)-\(to).csv") { writer in
                try await writer.write(ByteBuffer(string: header))
                var start = from
                while start <= to {
                    let end = min(start.adding(days: 365), to)
                    var text = ""
                    for day in try await health.days(owner, from: start, to: end, metrics: metrics) {
                        text += CSVText.line([.value(day.date.description), .value(day.metric.rawValue), .value(figure(day.value)),
                                              .value(day.metric.unit), .value(day.min.map(figure)), .value(day.max.map(figure)),
                                              .text(day.source), .value(String(day.samples))])
                    }
                    if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                    start = end.adding(days: 1)
                }
            } }
        }
    }

    /// As the JSON has it (`HealthFigures.rounded`), without a trailing ".0" on whole numbers.
    static func figure(_ value: Double) -> String {
        let rounded = HealthFigures.rounded(value)
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(rounded)
    }
}
