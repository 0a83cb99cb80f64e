import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import Projections

// What the health routes share: the one ingestion, and reading a request's range, language, metrics and path.
extension HealthArea {
    /// Checks the JSON, decodes with `decode`, refuses a batch over the limit, and ingests.
    static func ingest(
        _ request: Request, _ context: IngestionRequestContext, _ health: HealthService, format: String, rules: StrictJSON.Rules = [],
        decode: (Data) throws -> HealthIntake
    ) async throws -> HealthIngestionDTO {
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        guard body.readableBytes > 0 else { throw Problem.badRequest("The request needs a JSON body.") }
        let data = Data(buffer: body)
        // Every format is JSON; the exporters' own formats are read leniently past that (a NUL
        // in a field nobody reads is no reason to lose a batch).
        try StrictJSON.check(data, rules: rules)
        let intake = try decode(data)
        guard intake.received <= maxItems else {
            throw Problem(type: Problem.base + "too-large", title: "Request body too large", status: 413,
                          detail: "The batch has \(intake.received) items; send at most \(maxItems) per request.")
        }
        return HealthIngestionDTO(try await health.ingest(context.command(), deviceId: context.deviceId, intake, format: format))
    }

    /// `from` and `to` (dates, both included): by default the `defaultDays` up to the logical
    /// today; with only one of them, the `defaultDays` from or up to it (so a `from` alone never
    /// makes a window longer than allowed).
    static func range(_ request: Request, _ context: UserRequestContext, _ health: HealthService, defaultDays: Int = 30) async throws -> (LocalDate, LocalDate) {
        let givenFrom = try request.queryDate("from")
        let to: LocalDate
        // `days` counts back from `to` (today by default): a chart of "the last 90 days" needs no
        // date arithmetic in the client.
        let days = try request.query("days").map { raw in
            guard let days = Int(raw), (1...400).contains(days) else { throw ValidationFailure("days", "must be a whole number from 1 to 400") }
            guard request.query("from") == nil else { throw ValidationFailure("days", "give either from or days") }
            return days
        }
        if let given = try request.queryDate("to") {
            to = given
        } else if let givenFrom {
            to = givenFrom.adding(days: defaultDays - 1)
        } else {
            to = try await health.logicalToday(context.userId)
        }
        let from = givenFrom ?? to.adding(days: -((days ?? defaultDays) - 1))
        guard from <= to else { throw ValidationFailure("from", "must not be after to") }
        guard from.days(until: to) < 400 else { throw ValidationFailure("to", "must be within 400 days of from") }
        return (from, to)
    }

    /// The request's language (`RequestLanguage`), the user's read through the health service.
    static func language(_ request: Request, _ context: UserRequestContext, _ health: HealthService) async throws -> Language {
        try await RequestLanguage.resolve(request) { try await health.language(context.userId) }
    }

    static func metric(_ request: Request) throws -> HealthMetric {
        guard let raw = request.query("metric") else { throw ValidationFailure("metric", "is required") }
        guard let metric = HealthMetric(rawValue: raw) else {
            throw ValidationFailure("metric", "must be one of \(HealthMetric.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return metric
    }

    /// `?metrics=steps,heart_rate`, spaces around a name allowed; every metric when absent or empty.
    /// Exactly the document's pattern: an empty name between two commas is no metric.
    static func metrics(_ request: Request) throws -> [HealthMetric] {
        guard let given = request.query("metrics"), !given.isEmpty else { return HealthMetric.allCases }
        // A form-encoded space ("+", as browsers and most HTTP libraries send it) is a space: no metric has a "+".
        let raw = given.replacingOccurrences(of: "+", with: " ")
        return try raw.split(separator: ",", omittingEmptySubsequences: false).map { name in
            let trimmed = name.drop { $0 == " " }
            guard let metric = HealthMetric(rawValue: String(trimmed.dropLast(trimmed.reversed().prefix { $0 == " " }.count))) else {
                throw ValidationFailure("metrics", "\(name) is not a metric; known: \(HealthMetric.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return metric
        }
    }

    static func manualPath(_ context: UserRequestContext) throws -> (HealthMetric, LocalDate) {
        guard let metric = context.parameters.get("metric").flatMap(HealthMetric.init(rawValue:)) else {
            throw ValidationFailure("metric", "must be one of \(HealthMetric.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return (metric, try inputDate(context.parameters.get("date"), field: "date"))
    }

    /// A read that honours `?min_position=`: it waits until the day read models have read past
    /// that position and then answers `body` (given the position the read reflects), or after a
    /// short wait answers 202 "not yet" with `Retry-After`, so a client never reads stale figures
    /// as if they were its own write's.
    static func read<Body: ResponseGenerator>(
        _ request: Request, _ context: UserRequestContext, _ health: HealthService, model: HealthService.AsyncModel = .days,
        _ body: (LogPosition) async throws -> Body
    ) async throws -> Response {
        let asked = try request.query("min_position").map { raw in
            guard let position = LogPosition(text: raw) else {
                throw ValidationFailure("min_position", "must be a position as an ingestion answer gives it (transaction/position)")
            }
            return position
        }
        let (caughtUp, asOf) = try await health.waitForDays(asked, model: model)
        if !caughtUp, let asked {
            var response = try NotYetDTO(minPosition: asked.description, asOfPosition: asOf.description).response(from: request, context: context)
            response.status = .accepted
            response.headers[.retryAfter] = "1"
            return response
        }
        return try await body(asOf).response(from: request, context: context)
    }
}
