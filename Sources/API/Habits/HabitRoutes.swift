import Core
import Domain
import Foundation
import Hummingbird
import Projections

extension HabitsReadModel.Position: CursorPosition {
    public var isPlausible: Bool { (0...4_102_444_800_000_000).contains(createdMicros) }
}

struct HabitDTO: ResponseEncodable {
    struct Progress: Encodable, Sendable {
        var done: Int
        var target: Int
        var start: String
        var end: String
    }

    var id: String
    var name: String
    var emoji: String?
    var color: String?
    var kind: String
    var target: Decimal?
    var unit: String?
    var schedule: HabitSchedule
    var startDate: String
    var reminderTime: String?
    var archived: Bool
    var date: String
    var dueToday: Bool
    var completedToday: Bool
    var todayValue: Decimal?
    var periodProgress: Progress?
    var currentStreak: Int
    var bestStreak: Int
    var completionRate30d: Double?
    var nextDueDate: String?
    var version: Int64

    init(_ view: HabitView) {
        id = view.id.uuidString.lowercased()
        name = view.name
        emoji = view.emoji
        color = view.color
        kind = view.kind.rawValue
        target = view.target
        unit = view.unit
        schedule = view.schedule
        startDate = view.startDate.description
        reminderTime = view.reminderTime?.description
        archived = view.archived
        date = view.date.description
        dueToday = view.state.dueToday
        completedToday = view.state.completedToday
        todayValue = view.state.todayValue
        periodProgress = view.state.periodProgress.map {
            Progress(done: $0.done, target: $0.target, start: $0.start.description, end: $0.end.description)
        }
        currentStreak = view.state.currentStreak
        bestStreak = view.state.bestStreak
        completionRate30d = view.state.completionRate30d
        nextDueDate = view.state.nextDueDate?.description
        version = view.version
    }

    enum CodingKeys: String, CodingKey {
        case id, name, emoji, color, kind, target, unit, schedule, startDate, reminderTime, archived, date, dueToday
        case completedToday, todayValue, periodProgress, currentStreak, bestStreak
        case completionRate30d = "completion_rate_30d"
        case nextDueDate, version
    }
}

/// Habits: daily, weekly and monthly routines with streaks (`/api/v1/habits*`).
public struct HabitsArea: Area {
    public static let name = "Habits"
    public static let projectors: [any Projector] = [HabitsProjector()]
    public static let openAPIPart = "habits"
    let habits: HabitService

    public init(_ context: AreaContext) {
        habits = context.services.habits
    }

    struct LogRequest: Decodable {
        var date: String?
        var value: Decimal?
    }
    struct FreezeDTO: ResponseEncodable {
        var freezeId: String
        var habit: HabitDTO
    }
    struct LogDTO: Encodable, Sendable {
        var date: String
        var value: Decimal
    }
    struct HistoryDTO: Encodable, Sendable {
        var start: String
        var end: String
        var status: String
    }

    static func range(_ request: Request, today: LocalDate) throws -> (LocalDate, LocalDate) {
        let to = try request.queryDate("to") ?? today
        // `days` counts back from `to` (a year's heatmap is days=365): no date arithmetic in a client.
        let days = try request.query("days").map { raw in
            guard let days = Int(raw), (1...800).contains(days) else {
                throw Problem.invalid([.init(field: "days", message: "must be a whole number from 1 to 800")])
            }
            guard request.query("from") == nil else { throw Problem.invalid([.init(field: "days", message: "give either from or days")]) }
            return days
        }
        let from = try request.queryDate("from") ?? to.adding(days: -(days.map { $0 - 1 } ?? 30))
        guard from <= to, from.days(until: to) <= 800 else {
            throw Problem.invalid([.init(field: "from", message: "must be on or before to, at most 800 days earlier")])
        }
        return (from, to)
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        // Over 60 lines: one route a few lines each, every habit route in one place.
        let habits = self.habits
        let user = api.group("habits", context: UserRequestContext.self)
        user.post { request, context in
            let view = try await habits.create(context.command(), try await request.input(HabitDefinition.self, context: context))
            return EditedResponse(status: .created, headers: [.eTag: ETag.header(view.version)], response: HabitDTO(view))
        }
        user.get { request, context in
            let limit = try Cursor.limit(request)
            let after = try Cursor.decode(HabitsReadModel.Position.self, request.uri.queryParameters.get("cursor").map { String($0) })
            let views = try await habits.list(context.userId, on: try request.queryDate("date", windowCheckedLater: true),
                                              includeArchived: try request.queryFlag("include_archived"), after: after, limit: limit + 1)
            let page = Array(views.prefix(limit))
            return Page(items: page.map(HabitDTO.init), nextCursor: views.count > limit ? page.last.flatMap { Cursor.encode($0.position) } : nil)
        }
        user.get("{id}") { request, context in
            let view = try await habits.habit(context.userId, try context.resourceId(), on: try request.queryDate("date", windowCheckedLater: true))
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: HabitDTO(view))
        }
        user.patch("{id}") { request, context in
            let change = try await request.input(HabitChange.self, context: context)
            let view = try await habits.update(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), change: change)
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: HabitDTO(view))
        }
        user.delete("{id}") { _, context in
            _ = try await habits.setArchived(context.command(), try context.resourceId(), archived: true)
            return Response(status: .noContent)
        }
        user.post("{id}/restore") { _, context in
            HabitDTO(try await habits.setArchived(context.command(), try context.resourceId(), archived: false))
        }
        user.post("{id}/logs") { request, context in
            let body = try await request.json(LogRequest.self, context: context)
            let date = try body.date.map { try inputDate($0, field: "date") }
            return EditedResponse(status: .created, response: HabitDTO(try await habits.log(context.command(), try context.resourceId(), date: date, value: body.value)))
        }
        user.get("{id}/logs") { request, context in
            let id = try context.resourceId()
            let today = try await habits.habit(context.userId, id, on: nil).date
            let (from, to) = try Self.range(request, today: today)
            return Items(items: try await habits.logs(context.userId, id, from: from, to: to).map { LogDTO(date: $0.0.description, value: $0.1) })
        }
        user.delete("{id}/logs/{date}") { _, context in
            let date = try inputDate(context.parameters.get("date"), field: "date")
            return HabitDTO(try await habits.removeLog(context.command(), try context.resourceId(), date: date))
        }
        user.post("{id}/freezes") { request, context in
            let freeze = try await request.input(Habit.Freeze.self, context: context)
            let (freezeId, view) = try await habits.addFreeze(context.command(), try context.resourceId(), freeze)
            return EditedResponse(status: .created, response: FreezeDTO(freezeId: freezeId.uuidString.lowercased(), habit: HabitDTO(view)))
        }
        user.delete("{id}/freezes/{freeze_id}") { _, context in
            HabitDTO(try await habits.removeFreeze(context.command(), try context.resourceId(), freezeId: try context.resourceId("freeze_id")))
        }
        user.get("{id}/history") { request, context in
            let id = try context.resourceId()
            let today = try await habits.habit(context.userId, id, on: nil).date
            let (from, to) = try Self.range(request, today: today)
            return Items(items: try await habits.history(context.userId, id, from: from, to: to).map {
                HistoryDTO(start: $0.0.description, end: $0.1.description, status: $0.2.rawValue)
            })
        }
    }
}
