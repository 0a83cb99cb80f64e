import Core
import Domain
import Foundation
import HTTPTypes
import Hummingbird

/// HealthPush (danburtenshaw/HealthPush), an iPhone app that pushes HealthKit to a Home
/// Assistant webhook: the URL to paste is `<root>/api/v1/ingest/healthpush`, the secret a
/// lifelog device key, which the app sends as `X-Webhook-Secret` (CONTRACTS §3). Its connection
/// test (no metrics) is answered 200 for a good secret; a wrong secret is 401, a wrong URL 404.
public struct HealthPushClient: ClientAdapter {
    public static let name = "HealthPush"
    public static let openAPIPart = "healthpush"
    /// The path of the URL the user pastes (the creation answer of a device shows the whole URL).
    public static let path = "/api/v1/ingest/healthpush"
    let health: HealthService
    let sessions: SessionService

    public init(_ context: AreaContext) {
        health = context.services.health
        sessions = context.accounts.sessions
    }

    public func register(on router: RouterGroup<AppRequestContext>) {
        let health = self.health, sessions = self.sessions
        router.post(RouterPath(Self.path)) { request, context in
            let identity = try await ClientCredential.identity(context, appKey: request.headers[.webhookSecret], sessions: sessions)
            let (_, body) = try await ClientBody.json(request, context: context)
            let intake = try HealthPushFormat.decode(body, timeZone: try await health.timeZone(identity.userId))
            let command = CommandContext(userId: identity.userId, idempotencySeed: context.idempotencySeed)
            let report = try await health.ingest(command, deviceId: ClientCredential.deviceId(identity), intake, format: "healthpush")
            return try ClientJSON(Self.answer(report))
        }
    }

    /// Any 2xx is success for the app; lifelog's counts besides.
    static func answer(_ report: HealthIngestionReport) -> [String: Any] {
        [
            "status": "ok", "accepted": report.inserted + report.updated + report.duplicates,
            "received": report.received, "inserted": report.inserted, "updated": report.updated, "duplicates": report.duplicates,
            "rejected": report.rejected, "skipped": report.skipped,
            "errors": report.errors.map { ["index": $0.index, "field": $0.field, "message": $0.message] as [String: Any] },
            "position": report.position.map { $0.description as Any } ?? NSNull(),
        ]
    }
}
