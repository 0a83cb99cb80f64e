import Core
import Domain
import Foundation
import Hummingbird
import Projections

/// The dashboard's first page in the answer that starts its session (issue 28's first visit):
/// `POST /api/v1/auth/browser/refresh?first=today` answers, beside the access token, the reads
/// Today's page would make next (`/today`, the briefing, the open data checks, the day's score)
/// and the words in the user's language, each exactly as its own route answers it, so the page
/// renders without a second round of requests. A read that fails is left out: the page then
/// asks for it itself and meets the same answer (a day without a score is a 404 there).
struct DashboardFirstView: Encodable, Sendable {
    var labels: LabelsDTO
    var reads: Reads

    /// Keyed by the path the page reads (`today.js`'s `todayReads`).
    struct Reads: Encodable, Sendable {
        var today: TodayDTO?
        var briefing: BriefingDTO?
        var quality: FindingsDTO?
        /// Written by hand as its route writes it (`RecoveryDTO.write`), carried here as that JSON.
        var recovery: JSONValue?

        enum CodingKeys: String, CodingKey {
            case today = "/today", briefing = "/health/briefing", quality = "/health/quality?status=open", recovery = "/health/recovery"
        }
    }

    /// The one first page the server composes; any other asked for is none.
    static let pages: Set<String> = ["today"]

    /// The reads side by side; the words in the user's own language (the page asks `/labels`
    /// with it), every other word as the reads' routes resolve it for this request.
    static func compose(_ request: Request, user: UserRecord, services: Services) async throws -> DashboardFirstView {
        let (userId, health) = (user.id, services.health)
        let language = try await RequestLanguage.resolve(request) { user.profile.language }
        async let today = try? services.today.today(userId, date: nil)
        async let date = try? health.logicalToday(userId)
        async let asOfDays = try? health.waitForDays(nil).asOf
        async let asOfAudit = try? health.waitForDays(nil, model: .audit).asOf
        var reads = Reads()
        reads.today = await today.map { TodayDTO($0, language: language) }
        if let date = await date {
            async let recovery = try? HealthArea.recovery(health, userId, date: date, language: language).jsonValue()
            if let asOf = await asOfDays {
                reads.briefing = try? await HealthArea.briefing(health, userId, date: date, language: language, asOf: asOf)
            }
            reads.recovery = await recovery
        }
        if let asOf = await asOfAudit {
            reads.quality = try? await HealthArea.findings(health, userId, from: nil, to: nil, statuses: [.open], language: language, asOf: asOf)
        }
        let words = user.profile.language
        return DashboardFirstView(labels: LabelsDTO(lang: words.rawValue, labels: LabelCatalogue.labels(words)), reads: reads)
    }
}
