import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import Projections

/// Health: ingestion from devices and exporters (`/api/v1/ingest/*`) and the health reads
/// (`/api/v1/health/*`). Every format is a decoder into one `HealthIntake`; the rest is shared.
public struct HealthArea: Area {
    public static let name = "Health"
    public static let projectors: [any Projector] = [
        HealthRecordsProjector(), HealthSettingsProjector(), HealthDailyProjector(), HealthAuditProjector(),
    ]
    public static let openAPIPart = "health"
    /// Items in one request at most; a larger batch is 413 (send it in parts).
    static let maxItems = 50_000
    let health: HealthService

    public init(_ context: AreaContext) {
        health = context.services.health
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        registerIngestion(api.group("ingest", context: IngestionRequestContext.self))
        let reads = api.group("health", context: UserRequestContext.self)
        registerDays(reads)
        registerTrendsAndRecovery(reads)
        registerBriefingAndAudit(reads)
        registerUserInputs(reads)
        HealthSpreadsheet.register(reads, health: health)
    }

    /// `/ingest/*`: each format's decoder, then the one ingestion.
    func registerIngestion(_ ingest: RouterGroup<IngestionRequestContext>) {
        let health = self.health
        ingest.post("health") { request, context in
            // Half a surrogate pair anywhere stops JSONSerialization, so it is named first; a NUL
            // is the item's error where the reader keeps the string (NativeHealthFormat).
            try await Self.ingest(request, context, health, format: "native", rules: [.surrogates, .digits]) { try NativeHealthFormat.decode($0) }
        }
        ingest.post("health-auto-export") { request, context in
            try await Self.ingest(request, context, health, format: "health_auto_export") { try HealthAutoExportFormat.decode($0) }
        }
        // CoachFit's sync client and the Pulse webhook, unchanged but for their base URL.
        ingest.post("steps") { request, context in
            let zone = try await health.timeZone(context.identity.userId)
            return try await Self.ingest(request, context, health, format: "coachfit") { try CoachFitFormat.decodeSteps($0, timeZone: zone) }
        }
        ingest.post("sleep") { request, context in
            try await Self.ingest(request, context, health, format: "coachfit") { try CoachFitFormat.decodeSleep($0) }
        }
        ingest.post("workouts") { request, context in
            try await Self.ingest(request, context, health, format: "coachfit") { try CoachFitFormat.decodeWorkouts($0) }
        }
        ingest.post("profile") { request, context in
            try await Self.ingest(request, context, health, format: "coachfit") { try CoachFitFormat.decodeProfile($0) }
        }
        ingest.post("pulse") { request, context in
            try await Self.ingest(request, context, health, format: "pulse") { try PulseFormat.decode($0) }
        }
    }

    /// The day models, nights, workouts and the heatmap.
    func registerDays(_ reads: RouterGroup<UserRequestContext>) {
        let health = self.health
        reads.get("daily") { request, context in
            let (from, to) = try await Self.range(request, context, health)
            let metrics = try Self.metrics(request)
            return try await Self.read(request, context, health) { asOf in
                let days = try await health.days(context.userId, from: from, to: to, metrics: metrics)
                return HealthDailyDTO(asOfPosition: asOf.description, days: days.map(HealthDayDTO.init))
            }
        }
        reads.get("latest") { request, context in
            try await Self.read(request, context, health) { _ in
                Items(items: try await health.latest(context.userId).map(HealthLatestDTO.init))
            }
        }
        reads.get("sleep") { request, context in
            let (from, to) = try await Self.range(request, context, health)
            return try await Self.read(request, context, health) { asOf in
                let nights = try await health.nights(context.userId, from: from, to: to)
                return SleepNightsDTO(asOfPosition: asOf.description, items: nights.map(SleepNightDTO.init))
            }
        }
        reads.get("sleep/{date}") { request, context in
            let date = try inputDate(context.parameters.get("date"), field: "date")
            return try await Self.read(request, context, health) { _ in
                guard let night = try await health.nights(context.userId, from: date, to: date).first else { throw ResourceError.notFound }
                return SleepNightDTO(night)
            }
        }
        reads.get("workouts") { request, context in
            let (from, to) = try await Self.range(request, context, health)
            return try await Self.read(request, context, health) { _ in
                Items(items: try await health.workouts(context.userId, from: from, to: to).map(WorkoutDTO.init))
            }
        }
        reads.get("heatmap") { request, context in
            let metric = try Self.metric(request)
            let (from, to) = try await Self.range(request, context, health, defaultDays: 365)
            return try await Self.read(request, context, health) { asOf in
                let cells = try await health.heatmap(context.userId, metric: metric, from: from, to: to)
                return HealthHeatmapDTO(metric: metric.rawValue, unit: metric.unit, asOfPosition: asOf.description,
                                        days: cells.map { .init(date: $0.date.description, value: $0.value.map(HealthFigures.rounded), level: $0.level) })
            }
        }
    }

    /// Trends and the recovery score.
    func registerTrendsAndRecovery(_ reads: RouterGroup<UserRequestContext>) {
        let health = self.health
        reads.get("trends") { request, context in
            let metric = try Self.metric(request)
            let days = try request.query("days").map { raw in
                guard let days = Int(raw), [7, 30, 90].contains(days) else { throw ValidationFailure("days", "must be 7, 30 or 90") }
                return days
            } ?? 30
            return try await Self.read(request, context, health) { asOf in
                HealthTrendDTO(try await health.trend(context.userId, metric: metric, days: days), asOf: asOf)
            }
        }
        reads.get("recovery") { request, context in
            let language = try await Self.language(request, context, health)
            if request.query("from") != nil || request.query("to") != nil || request.query("days") != nil {
                guard request.query("date") == nil else { throw ValidationFailure("date", "give either date, or from and to") }
                let (from, to) = try await Self.range(request, context, health)
                return try await Self.read(request, context, health) { asOf in
                    let (scores, checkIns) = try await health.recovery(context.userId, from: from, to: to)
                    return RecoveryListDTO(asOfPosition: asOf.description,
                                           items: scores.map { RecoveryDTO($0, checkIn: checkIns[$0.date], language: language) })
                }
            }
            let given = try request.queryDate("date")
            let date = if let given { given } else { try await health.logicalToday(context.userId) }
            return try await Self.read(request, context, health) { _ in
                try await Self.recovery(health, context.userId, date: date, language: language)
            }
        }
    }

    /// The briefing and the data audit's findings.
    func registerBriefingAndAudit(_ reads: RouterGroup<UserRequestContext>) {
        let health = self.health
        reads.get("briefing") { request, context in
            let language = try await Self.language(request, context, health)
            let given = try request.queryDate("date")
            let date = if let given { given } else { try await health.logicalToday(context.userId) }
            return try await Self.read(request, context, health) { asOf in
                try await Self.briefing(health, context.userId, date: date, language: language, asOf: asOf)
            }
        }
        reads.get("quality") { request, context in
            let language = try await Self.language(request, context, health)
            let statuses: [HealthAudit.Status] = switch request.query("status") ?? "open" {
            case "open": [.open]
            case "acknowledged": [.acknowledged]
            case "all": HealthAudit.Status.allCases
            default: throw ValidationFailure("status", "must be open, acknowledged or all")
            }
            let (from, to) = (try request.queryDate("from"), try request.queryDate("to"))
            return try await Self.read(request, context, health, model: .audit) { asOf in
                try await Self.findings(health, context.userId, from: from, to: to, statuses: statuses, language: language, asOf: asOf)
            }
        }
        reads.get("quality/summary") { request, context in
            let language = try await Self.language(request, context, health)
            return try await Self.read(request, context, health, model: .audit) { asOf in
                QualitySummaryDTO(try await health.findingCounts(context.userId), language: language, asOf: asOf.description)
            }
        }
        reads.patch("quality/{id}") { request, context in
            let id = try context.resourceId()
            let body = try await request.json(AcknowledgeBody.self, context: context)
            guard body.status == HealthAudit.Status.acknowledged.rawValue else {
                throw ValidationFailure("status", "must be acknowledged")
            }
            let (finding, position) = try await health.acknowledge(context.command(), finding: id)
            return try FindingDTO(finding, language: try await Self.language(request, context, health), position: position?.description)
        }
    }

    /// What the user states: check-ins, source priority, manual figures.
    func registerUserInputs(_ reads: RouterGroup<UserRequestContext>) {
        let health = self.health
        reads.put("checkins/{date}") { request, context in
            let date = try inputDate(context.parameters.get("date"), field: "date")
            let body = try await request.json(CheckInBody.self, context: context)
            let stored = try await health.checkIn(context.command(), date: date, feeling: body.feeling, note: body.note)
            return CheckInDTO(stored, language: try await Self.language(request, context, health))
        }
        reads.get("source-priority") { _, context in
            SourcePriorityDTO(try await health.priority(context.userId))
        }
        reads.put("source-priority") { request, context in
            let body = try await request.json(SourcePriorityBody.self, context: context)
            let kinds = try body.order.enumerated().map { index, name in
                guard let kind = HealthSourceKind(rawValue: name) else {
                    throw ValidationFailure("order[\(index)]", "must be one of \(HealthSourceKind.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return kind
            }
            return SourcePriorityDTO(try await health.setPriority(context.command(), kinds))
        }
        reads.put("manual/{metric}/{date}") { request, context in
            let (metric, date) = try Self.manualPath(context)
            let body = try await request.json(ManualValueBody.self, context: context)
            let manual = try ManualValue.read(metric: metric, date: date, value: body.value, unit: body.unit).get()
            let position = try await health.setManual(context.command(), manual)
            return ManualValueDTO(metric: metric.rawValue, date: date.description, value: HealthFigures.rounded(manual.value), unit: metric.unit,
                                  position: position?.description)
        }
        reads.delete("manual/{metric}/{date}") { _, context in
            let (metric, date) = try Self.manualPath(context)
            try await health.clearManual(context.command(), metric: metric, date: date)
            return Response(status: .noContent)
        }
    }
}
