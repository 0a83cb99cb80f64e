import Core
import Domain
import Foundation
import Hummingbird
import HTTPTypes

/// A phone app lifelog serves as it is, in the app's own wire format (DESIGN §10, issue 27):
/// its paths, envelopes, names, units and dates mapped onto the native ingestion commands and
/// reads. An adapter holds no business rule of its own (deduplication, source priority, manual
/// values, nights, the recovery score and the briefing stay in the health area), and never
/// answers a number lifelog does not compute. Registered like an area: its routes (outside
/// `/api/v1`, where the app's paths are), its part of the OpenAPI document, one line in
/// `ClientCatalog.adapters`.
public protocol ClientAdapter: Sendable {
    /// The app's name, as in its folder under `Sources/API/Clients/`.
    static var name: String { get }
    /// Its part of the OpenAPI document: a file in `Sources/API/OpenAPI`, without `.yaml`.
    static var openAPIPart: String { get }
    init(_ context: AreaContext)
    /// Registers its routes on the whole router: the app decides its paths.
    func register(on router: RouterGroup<AppRequestContext>)
}

/// The apps lifelog serves, in the order their routes and documents are listed.
public enum ClientCatalog {
    public static let adapters: [any ClientAdapter.Type] = [
        HealthSyncClient.self,
        GymDashSyncClient.self,
        HealthPushClient.self,
        PulseClient.self,
    ]
}

/// Who an app's request comes from. Each app carries a lifelog device key its own way (health-sync
/// in `X-API-Key`, Pulse in `?key=`, HealthPush in `X-Webhook-Secret`, GymDashSync as the
/// `client_id` its pairing answer gave it); the key is the one device credential of lifelog's
/// kind (`DeviceService`: issued once, stored hashed, revocable from `/devices`). A session token
/// works too. As everywhere, two credentials in one request are refused.
enum ClientCredential {
    /// The caller: the credential the auth middleware read, or `appKey`, the app's own transport.
    static func identity(_ context: AppRequestContext, appKey: String?, sessions: SessionService) async throws -> Identity {
        if let appKey {
            guard context.authFailure == nil else { throw AuthError.unauthenticated("send one credential, not several") }
            let identity = try await sessions.authenticate(deviceKey: appKey)
            // The same key in a header too names the same caller; another credential is a second one.
            guard context.identity == nil || context.identity == identity else {
                throw AuthError.unauthenticated("send one credential, not several")
            }
            return identity
        }
        if let identity = context.identity { return identity }
        throw context.authFailure ?? AuthError.unauthenticated("send the device key lifelog issued for this app")
    }

    /// The device the key belongs to; nil for a user's session.
    static func deviceId(_ identity: Identity) -> UUID? {
        if case .device(_, let deviceId) = identity { deviceId } else { nil }
    }
}

/// A JSON answer written the way the apps' own servers write it: `application/json`, keys
/// exactly as given (the context's encoder would turn `SLEEP` and `respiratoryRate` into
/// snake_case), serialised when made.
struct ClientJSON: ResponseGenerator, Sendable {
    var status: HTTPResponse.Status = .ok
    var data: Data

    init(status: HTTPResponse.Status = .ok, _ object: Any) throws {
        self.status = status
        data = try Self.serialize(object)
    }

    static func serialize(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Reading a JSON body leniently, as the exporters' routes do: strict syntax, then whatever shape.
enum ClientBody {
    static func json(_ request: Request, context: some RequestContext, limit: Int = 100 * 1024 * 1024) async throws -> (Data, Any) {
        var request = request
        let buffer = try await request.collectBody(upTo: limit)
        guard buffer.readableBytes > 0 else { throw Problem.badRequest("The request needs a JSON body.") }
        let data = Data(buffer: buffer)
        try StrictJSON.check(data, fieldRules: false)
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw Problem.badRequest("The body is not JSON.")
        }
        return (data, object)
    }
}

/// An app's upload, after its adapter decoded it: refused past `HealthArea.maxItems` (413, as
/// the native batch), then ingested for the credential's user and device like any batch.
enum ClientIngestion {
    static func ingest(_ health: HealthService, _ identity: Identity, _ context: AppRequestContext, _ intake: HealthIntake,
                       format: String) async throws -> HealthIngestionReport {
        guard intake.received <= HealthArea.maxItems else {
            throw Problem(type: Problem.base + "too-large", title: "Request body too large", status: 413,
                          detail: "The upload has \(intake.received) items; send at most \(HealthArea.maxItems) per request.")
        }
        let command = CommandContext(userId: identity.userId, idempotencySeed: context.idempotencySeed)
        return try await health.ingest(command, deviceId: ClientCredential.deviceId(identity), intake, format: format)
    }
}

/// Numbers as the apps decode them: an integer for `Int` fields (half to even, as every figure
/// lifelog rounds), a figure to two decimals for the rest.
enum ClientFigures {
    static func integer(_ value: Double) -> Int {
        guard value.isFinite else { return 0 }
        return Int(value.rounded(.toNearestOrEven))
    }

    static func decimal(_ value: Double, places: Int = 2) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded(.toNearestOrEven) / scale
    }
}
