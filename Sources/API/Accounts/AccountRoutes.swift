import Core
import Domain
import Foundation
import Hummingbird
import Projections

/// Accounts: `/api/v1/auth/*`, `/api/v1/me*`, `/api/v1/devices*`, `/api/v1/pair`, `/api/v1/ingest/whoami`.
public struct AccountsArea: Area {
    public static let name = "Accounts"
    public static let projectors: [any Projector] = [AccountsProjector()]
    public static let openAPIPart = "accounts"
    /// Sessions, keys and codes are made beside the log: a retry waits for its first attempt.
    public static let commandsRerunSafely = false
    let accounts: AccountService
    let reminders: ReminderService
    /// What the dashboard's first view reads (`DashboardFirstView`).
    let services: Services
    /// Told when sessions end here, so their event streams end at once (other instances hear the NOTIFY).
    let changeFeed: ChangeFeed

    public init(_ context: AreaContext) {
        accounts = context.accounts
        changeFeed = context.changeFeed
        reminders = context.services.reminders
        services = context.services
    }

    struct LoginRequest: Decodable {
        var email: String
        var password: String
    }
    struct RefreshRequest: Decodable { var refreshToken: String }
    struct PasswordRequest: Decodable {
        var currentPassword: String
        var newPassword: String
    }
    /// `DELETE /me`: the current password confirms the erasure.
    struct ErasureRequest: Decodable {
        var password: String?
    }
    struct PairRequest: Decodable {
        var code: String
        var deviceName: String
        var kind: String?
    }
    struct PairingCodeDTO: ResponseEncodable {
        var code: String
        var expiresAt: Date
    }
    struct WhoAmIDTO: ResponseEncodable {
        var userId: String
        var deviceId: String?
        var scope: String
    }
    /// A device list position; the time as whole microseconds, range-checked on the way in.
    struct DevicePosition: Codable, CursorPosition {
        var createdAtMicros: Int64
        var id: UUID

        init(createdAt: Date, id: UUID) {
            createdAtMicros = Int64((createdAt.timeIntervalSince1970 * 1_000_000).rounded())
            self.id = id
        }

        /// Years 1970 to about 2100: anything else was not made by this server.
        var isPlausible: Bool { (0...4_102_444_800_000_000).contains(createdAtMicros) }
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        // Over 60 lines: the area's route table, one short closure per route.
        let sessions = accounts.sessions, devices = accounts.devices, profiles = accounts.profiles
        api.post("auth/register") { request, context in
            let account = try await request.input(NewAccount.self, context: context)
            let (user, pair) = try await sessions.register(account, address: context.remoteAddress)
            return EditedResponse(status: .created, headers: [.eTag: ETag.header(user.version)], response: TokenDTO(pair, user: user))
        }
        api.post("auth/login") { request, context in
            let body = try await request.json(LoginRequest.self, context: context)
            let (user, pair) = try await sessions.login(email: body.email, password: body.password, address: context.remoteAddress)
            return TokenDTO(pair, user: user)
        }
        api.post("auth/refresh") { request, context in
            let body = try await request.json(RefreshRequest.self, context: context)
            return TokenDTO(try await sessions.refresh(body.refreshToken))
        }
        api.post("pair") { request, context in
            let body = try await request.json(PairRequest.self, context: context)
            let device = try NewDevice.validated(from: DeviceDraft(name: body.deviceName, kind: body.kind ?? "other")).get()
            let (paired, key) = try await devices.pair(code: body.code, device: device, address: context.remoteAddress)
            return EditedResponse(status: .created, response: DeviceDTO(paired, apiKey: key))
        }

        registerBrowserSession(on: api)

        let ingestion = api.group("ingest", context: IngestionRequestContext.self)
        ingestion.get("whoami") { _, context in
            switch context.identity {
            case .device(let userId, let deviceId):
                WhoAmIDTO(userId: userId.uuidString.lowercased(), deviceId: deviceId.uuidString.lowercased(), scope: "ingestion")
            case .user(let userId, _):
                WhoAmIDTO(userId: userId.uuidString.lowercased(), deviceId: nil, scope: "user")
            }
        }

        let user = api.group(context: UserRequestContext.self)
        let changeFeed = self.changeFeed
        user.post("auth/logout") { _, context in
            try await sessions.logout(sessionId: context.sessionId, userId: context.userId)
            changeFeed.checkSessions()
            return Response(status: .noContent)
        }
        user.post("auth/logout-all") { _, context in
            try await sessions.logoutAll(userId: context.userId)
            changeFeed.checkSessions()
            return Response(status: .noContent)
        }
        let reminders = self.reminders
        user.get("me") { _, context in
            let record = try await profiles.user(context.userId)
            let webhook = try await reminders.webhook(context.userId)
            return EditedResponse(headers: [.eTag: ETag.header(record.version)], response: UserDTO(record, webhook: webhook))
        }
        user.patch("me") { request, context in
            let draft = try await request.json(ProfileChangeDraft.self, context: context)
            let url = draft.reminders?.webhookUrl ?? .keep, secret = draft.reminders?.webhookSecret ?? .keep
            // Checked before anything is saved: a bad webhook leaves the profile as it was too.
            try ValidationFailure.check(try await reminders.webhookErrors(context.userId, url: url, secret: secret))
            let change = try ProfileChange.validated(from: draft).get()
            let record = try await profiles.update(context.command(ifMatch: try ETag.ifMatch(request)), change: change)
            let newSecret = try await reminders.applyWebhook(context.userId, url: url, secret: secret)
            let webhook = try await reminders.webhook(context.userId)
            return EditedResponse(headers: [.eTag: ETag.header(record.version)], response: UserDTO(record, webhook: webhook, newSecret: newSecret))
        }
        let erasure = accounts.erasure
        user.delete("me") { request, context in
            let body = try await request.json(ErasureRequest.self, context: context)
            try await erasure.erase(context.userId, password: body.password)
            changeFeed.checkSessions()
            // A browser's session cookies go too (the account they named is gone).
            var response = Response(status: .noContent)
            BrowserSession.apply(BrowserSession.clearing(request), to: &response.headers)
            return response
        }
        user.post("me/password") { request, context in
            let body = try await request.json(PasswordRequest.self, context: context)
            let pair = try await sessions.changePassword(context.userId, current: body.currentPassword, new: body.newPassword)
            changeFeed.checkSessions()
            return TokenDTO(pair)
        }
        user.post("devices") { request, context in
            let (device, key) = try await devices.create(context.command(), try await request.input(NewDevice.self, context: context))
            return EditedResponse(status: .created, response: DeviceDTO(device, apiKey: key, connect: DeviceDTO.Connect(request)))
        }
        user.get("devices") { request, context in
            let limit = try Cursor.limit(request)
            let position = try Cursor.decode(DevicePosition.self, request.uri.queryParameters.get("cursor").map { String($0) })
            let after = position.map { (micros: $0.createdAtMicros, id: $0.id) }
            let found = try await devices.list(context.userId, after: after, limit: limit + 1)
            let page = Array(found.prefix(limit))
            let next = found.count > limit ? page.last.flatMap { Cursor.encode(DevicePosition(createdAt: $0.createdAt, id: $0.id)) } : nil
            let zone = TimeZone(identifier: try await profiles.user(context.userId).profile.timezone)
            return Page(items: page.map { DeviceDTO($0, zone: zone) }, nextCursor: next)
        }
        user.delete("devices/{id}") { _, context in
            try await devices.revoke(context.command(), deviceId: try context.resourceId())
            return Response(status: .noContent)
        }
        user.post("devices/pairing-codes") { _, context in
            let (code, expires) = try await devices.createPairingCode(context.command())
            return EditedResponse(status: .created, response: PairingCodeDTO(code: code, expiresAt: expires))
        }
    }
}
