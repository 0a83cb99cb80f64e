import Core
import Domain
import Foundation
import Hummingbird
import Projections

struct ReminderDTO: ResponseEncodable {
    var id: String
    var key: String
    var kind: String
    var subject: String
    var dueAt: Date
    var dueLocal: String
    var status: String
    var statusLabel: String
    var title: String
    var body: String
    var data: [String: ReminderValue]
    var attempts: Int
    @NullWhenEmpty var lastStatus: Int? = nil
    @NullWhenEmpty var lastError: String? = nil

    init(_ item: OutboxItem, language: Language) {
        id = item.id.uuidString.lowercased()
        key = item.key
        kind = item.kind
        subject = item.subject
        dueAt = item.dueAt
        dueLocal = item.dueLocal
        status = item.status.rawValue
        statusLabel = LabelCatalogue.text("reminder.status.\(item.status.rawValue)", language)
        title = item.title
        body = item.body
        data = (try? JSONDecoder().decode([String: ReminderValue].self, from: Data(item.data.utf8))) ?? [:]
        attempts = item.attempts
        lastStatus = item.lastStatus
        lastError = item.lastError
    }

    enum CodingKeys: String, CodingKey {
        case id, key, kind, subject, dueAt, dueLocal, status, statusLabel, title, body, data, attempts, lastStatus, lastError
    }
}

/// A position in the newest-first list: the due time in whole microseconds, and the id.
struct ReminderPosition: Codable, CursorPosition {
    var dueMicros: Int64
    var id: UUID

    init(_ item: OutboxItem) {
        dueMicros = Int64((item.dueAt.timeIntervalSince1970 * 1_000_000).rounded())
        id = item.id
    }

    var isPlausible: Bool { (0...4_102_444_800_000_000).contains(dueMicros) }
    var date: Date { Date(timeIntervalSince1970: Double(dueMicros) / 1_000_000) }
}

/// Reminders to pull (`/api/v1/reminders`): what the job planned, newest first, and the
/// acknowledgement an app sends once it has shown one; and event webhooks (`/api/v1/webhooks`).
public struct RemindersArea: Area {
    public static let name = "Reminders"
    public static let projectors: [any Projector] = [EventWebhookProjector()]
    public static let openAPIPart = "reminders"
    let reminders: ReminderService
    let webhooks: EventWebhookService
    let profiles: ProfileService

    public init(_ context: AreaContext) {
        profiles = context.accounts.profiles
        webhooks = context.services.webhooks
        reminders = context.services.reminders
    }

    static let filters: [String: [ReminderStatus]] = [
        "pending": [.pending], "delivered": [.delivered], "failed": [.failed], "skipped": [.skipped], "all": ReminderStatus.allCases,
    ]

    public func register(on api: RouterGroup<AppRequestContext>) {
        let reminders = self.reminders, profiles = self.profiles
        WebhookRoutes(webhooks: webhooks, profiles: profiles).register(on: api)
        let user = api.group("reminders", context: UserRequestContext.self)
        user.get { request, context in
            let raw = request.uri.queryParameters.get("status").map { String($0) } ?? "pending"
            guard let statuses = Self.filters[raw] else {
                throw Problem.invalid([.init(field: "status", message: "must be one of pending, delivered, failed, skipped, all")])
            }
            let limit = try Cursor.limit(request)
            let after = try Cursor.decode(ReminderPosition.self, request.uri.queryParameters.get("cursor").map { String($0) })
            let items = try await reminders.list(context.userId, statuses: statuses, before: after.map { ($0.date, $0.id) }, limit: limit + 1)
            let page = Array(items.prefix(limit))
            let language = try await RequestLanguage.resolve(request, userId: context.userId, profiles: profiles)
            return Page(items: page.map { ReminderDTO($0, language: language) },
                        nextCursor: items.count > limit ? page.last.flatMap { Cursor.encode(ReminderPosition($0)) } : nil)
        }
        user.post("{id}/ack") { request, context in
            let item = try await reminders.acknowledge(context.userId, try context.resourceId())
            return ReminderDTO(item, language: try await RequestLanguage.resolve(request, userId: context.userId, profiles: profiles))
        }
    }
}
