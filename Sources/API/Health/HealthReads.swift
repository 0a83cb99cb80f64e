import Core
import Domain
import EventStore
import Foundation
import Projections

// The answers of the health reads Today's page shows, as functions of their own: the routes
// answer with them, and the dashboard's first view (`DashboardFirstView`) sends the same ones.
extension HealthArea {
    /// `GET /health/recovery` for one day: its score, or 404 when there is none.
    static func recovery(_ health: HealthService, _ userId: UUID, date: LocalDate, language: Language) async throws -> RecoveryDTO {
        let (scores, checkIns) = try await health.recovery(userId, from: date, to: date)
        guard let score = scores.first else { throw ResourceError.notFound }
        return RecoveryDTO(score, checkIn: checkIns[date], language: language)
    }

    /// `GET /health/briefing` for one day, as of the day models' position.
    static func briefing(
        _ health: HealthService, _ userId: UUID, date: LocalDate, language: Language, asOf: LogPosition
    ) async throws -> BriefingDTO {
        let (briefing, checkIn, freshness) = try await health.briefing(userId, date: date, language: language)
        return BriefingDTO(briefing, checkIn: checkIn, freshness: freshness, language: language, asOf: asOf.description)
    }

    /// `GET /health/quality`: the findings of these statuses between the dates (filters, not a
    /// range: from after to matches nothing, as a transaction filter does).
    static func findings(
        _ health: HealthService, _ userId: UUID, from: LocalDate?, to: LocalDate?, statuses: [HealthAudit.Status], language: Language,
        asOf: LogPosition
    ) async throws -> FindingsDTO {
        let inverted = if let from, let to { from > to } else { false }
        let found = inverted ? [] : try await health.findings(userId, from: from, to: to, statuses: statuses)
        return FindingsDTO(asOfPosition: asOf.description, items: try found.map { try FindingDTO($0, language: language) })
    }
}

extension RecoveryDTO {
    /// The JSON its route answers with, as a value another answer can carry.
    func jsonValue() throws -> JSONValue {
        var json = JSONText()
        write(&json)
        return try JSONDecoder().decode(JSONValue.self, from: Data(json.text.utf8))
    }
}
