import Core
import Domain
import Foundation
import HTTPTypes
import Hummingbird

/// GymDashSync (adamswbrown/GymDashSync), the iPhone app of the CoachFit coaching service. Its
/// server address is fixed in the app (changed only through the `GymDashSync.BackendURL`
/// default, see README "Connecting your apps"); it pairs at `POST /pair` with a code typed in
/// (lifelog's pairing code, `POST /api/v1/devices/pairing-codes`), keeps the `client_id` the
/// answer gives (a lifelog device key) and sends it in every upload's body (CONTRACTS §2).
public struct GymDashSyncClient: ClientAdapter {
    public static let name = "GymDashSync"
    public static let openAPIPart = "gymdashsync"
    let health: HealthService
    let sessions: SessionService
    let devices: DeviceService
    let clock: any WallClock

    public init(_ context: AreaContext) {
        health = context.services.health
        sessions = context.accounts.sessions
        devices = context.accounts.devices
        clock = context.clock
    }

    public func register(on router: RouterGroup<AppRequestContext>) {
        // Over 60 lines: the app's route table, one short closure per route.
        let health = self.health, sessions = self.sessions, devices = self.devices, clock = self.clock

        router.post("pair") { request, context in
            let (_, body) = try await ClientBody.json(request, context: context)
            guard let object = body as? [String: Any], let code = object["code"] as? String, !code.isEmpty else {
                throw ValidationFailure("code", "is required: the pairing code lifelog showed")
            }
            let name = (object["device_name"] as? String).map { String($0.prefix(100)).trimmingCharacters(in: .whitespacesAndNewlines) }
                .flatMap { $0.isEmpty ? nil : $0 } ?? "GymDashSync"
            do {
                let phone = try NewDevice.validated(from: DeviceDraft(name: name, kind: DeviceKind.phone.rawValue)).get()
                let (device, key) = try await devices.pair(code: code, device: phone, address: context.remoteAddress)
                guard let key else { throw Problem.conflict("This pairing was answered before; pair again with a new code.") }
                return try ClientJSON(Self.paired(clientId: key, deviceId: device.id, at: clock.now()))
            } catch AuthError.invalidPairingCode {
                // The app says "Invalid pairing code" for a 404 only.
                throw Problem.notFound("The pairing code is wrong, expired or already used.")
            }
        }

        let ingest = router.group("api/ingest")
        ingest.post("steps") { request, context in
            let (identity, body) = try await Self.caller(request, context, sessions)
            let intake = try GymDashSyncFormat.decodeSteps(body, timeZone: try await health.timeZone(identity.userId))
            return try ClientJSON(Self.answer(try await Self.ingest(health, identity, context, intake)))
        }
        ingest.post("sleep") { request, context in
            let (identity, body) = try await Self.caller(request, context, sessions)
            return try ClientJSON(Self.answer(try await Self.ingest(health, identity, context, try GymDashSyncFormat.decodeSleep(body))))
        }
        ingest.post("workouts") { request, context in
            let (identity, body) = try await Self.caller(request, context, sessions)
            let intake = GymDashSyncFormat.decodeWorkouts(try GymDashSyncFormat.list(body, "workouts"))
            return try ClientJSON(Self.answer(try await Self.ingest(health, identity, context, intake)))
        }
        ingest.post("profile") { request, context in
            let (identity, body) = try await Self.caller(request, context, sessions)
            let intake = GymDashSyncFormat.decodeProfile(try GymDashSyncFormat.list(body, "metrics"))
            return try ClientJSON(Self.answer(try await Self.ingest(health, identity, context, intake)))
        }
        // Updates of items the app was told exist: a bare array, the client_id in each item.
        ingest.put("workouts") { request, context in
            let (identity, items) = try await Self.updateCaller(request, context, sessions)
            return try ClientJSON(Self.answer(try await Self.ingest(health, identity, context, GymDashSyncFormat.decodeWorkouts(items))))
        }
        ingest.put("profile") { request, context in
            let (identity, items) = try await Self.updateCaller(request, context, sessions)
            return try ClientJSON(Self.answer(try await Self.ingest(health, identity, context, GymDashSyncFormat.decodeProfile(items))))
        }
        // "Which of these exist?": the app sends no credential here, so without one the answer is
        // none (it then sends them all, and ingestion stores each once).
        for kind in ["workouts", "profile"] {
            ingest.post("\(kind)/query") { request, context in
                let (_, body) = try await ClientBody.json(request, context: context)
                guard let asked = (body as? [String: Any])?["uuids"] as? [String] else { throw ValidationFailure("uuids", "is required: an array of ids (strings)") }
                let clientId = (body as? [String: Any])?["client_id"] as? String
                guard clientId != nil || context.identity != nil || context.authFailure != nil else { return try ClientJSON([Any]()) }
                let identity = try await ClientCredential.identity(context, appKey: clientId, sessions: sessions)
                let stored = try await health.storedUUIDs(identity.userId, uuids: asked)
                return try ClientJSON(asked.filter { HealthIntakeRules.normalizedUUID($0).map(stored.contains) ?? false }.map { ["uuid": $0] })
            }
        }
    }

    /// The pairing's answer: the app keeps `client_id` and reads nothing else.
    static func paired(clientId: String, deviceId: UUID, at time: Date) -> [String: Any] {
        ["success": true, "client_id": clientId, "device_id": deviceId.uuidString.lowercased(), "message": "Paired with lifelog",
         "paired_at": ISO8601DateFormatter().string(from: time)]
    }

    /// The body and who sent it: its `client_id` (or a credential of lifelog's own transports).
    static func caller(_ request: Request, _ context: AppRequestContext, _ sessions: SessionService) async throws -> (Identity, Any) {
        let (_, body) = try await ClientBody.json(request, context: context)
        let clientId = (body as? [String: Any])?["client_id"] as? String
        return (try await ClientCredential.identity(context, appKey: clientId, sessions: sessions), body)
    }

    static func updateCaller(_ request: Request, _ context: AppRequestContext, _ sessions: SessionService) async throws -> (Identity, [Any]) {
        let (_, body) = try await ClientBody.json(request, context: context)
        guard let items = body as? [Any] else { throw HealthFormatError("the body must be a JSON array of items") }
        let ids = Set(items.compactMap { ($0 as? [String: Any])?["client_id"] as? String })
        guard ids.count <= 1 else { throw AuthError.unauthenticated("every item of one request must carry the same client_id") }
        return (try await ClientCredential.identity(context, appKey: ids.first, sessions: sessions), items)
    }

    static func ingest(_ health: HealthService, _ identity: Identity, _ context: AppRequestContext, _ intake: HealthIntake) async throws -> HealthIngestionReport {
        try await ClientIngestion.ingest(health, identity, context, intake, format: "gymdashsync")
    }

    /// The counts the app logs (`count_inserted`, `duplicates_skipped`, `warnings_count`,
    /// `errors_count`, `errors` as strings), and lifelog's own.
    static func answer(_ report: HealthIngestionReport) -> [String: Any] {
        [
            "success": true,
            "count_inserted": report.inserted + report.updated, "duplicates_skipped": report.duplicates,
            "warnings_count": report.skipped, "errors_count": report.rejected,
            "errors": report.errors.map { "\($0.field): \($0.message)" },
            "received": report.received, "inserted": report.inserted, "updated": report.updated,
        ]
    }
}
