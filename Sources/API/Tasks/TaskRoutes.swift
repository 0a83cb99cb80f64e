import Core
import Domain
import Foundation
import Hummingbird
import Projections

extension TaskCursor: CursorPosition {
    public var isPlausible: Bool {
        LocalDate(due) != nil && (1...3).contains(priority) && (0...4_102_444_800_000_000).contains(createdMicros)
    }
}

struct TaskDTO: ResponseEncodable {
    var id: String
    var title: String
    var notes: String?
    var priority: Int
    var dueDate: String?
    var dueTime: String?
    var `repeat`: TaskRepeat?
    var completed: Bool
    var completedAt: Date?
    var nextTaskId: String?
    var overdue: Bool
    var dueToday: Bool
    var createdAt: Date
    var version: Int64

    init(_ view: TaskView) {
        id = view.id.uuidString.lowercased()
        title = view.title
        notes = view.notes
        priority = view.priority
        dueDate = view.dueDate?.description
        dueTime = view.dueTime?.description
        self.repeat = view.repeat
        completed = view.completed
        completedAt = view.completedAt
        nextTaskId = view.nextTaskId?.uuidString.lowercased()
        overdue = view.overdue
        dueToday = view.dueToday
        createdAt = view.createdAt
        version = view.version
    }
}

/// Tasks: to-dos with due dates, priorities and repeats (`/api/v1/tasks*`).
public struct TasksArea: Area {
    public static let name = "Tasks"
    public static let projectors: [any Projector] = [TasksProjector()]
    public static let openAPIPart = "tasks"
    let tasks: TaskService

    public init(_ context: AreaContext) {
        tasks = context.services.tasks
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        let tasks = self.tasks
        let user = api.group("tasks", context: UserRequestContext.self)
        user.post { request, context in
            let task = try await request.input(TaskDefinition.self, context: context)
            let view = try await tasks.create(context.command(), task)
            return EditedResponse(status: .created, headers: [.eTag: ETag.header(view.version)], response: TaskDTO(view))
        }
        user.get { request, context in
            let raw = request.uri.queryParameters.get("filter").map { String($0) } ?? "open"
            guard let filter = TaskService.Filter(rawValue: raw) else {
                throw Problem.invalid([.init(field: "filter", message: "must be one of open, today, overdue, completed, all")])
            }
            let limit = try Cursor.limit(request)
            let after = try Cursor.decode(TaskCursor.self, request.uri.queryParameters.get("cursor").map { String($0) })
            let views = try await tasks.list(context.userId, filter: filter, after: after, limit: limit + 1)
            let page = Array(views.prefix(limit))
            return Page(items: page.map(TaskDTO.init), nextCursor: views.count > limit ? page.last.flatMap { Cursor.encode($0.sortKey) } : nil)
        }
        user.get("{id}") { _, context in
            let view = try await tasks.task(context.userId, try context.resourceId())
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: TaskDTO(view))
        }
        user.patch("{id}") { request, context in
            let change = try await request.input(TaskChange.self, context: context)
            let view = try await tasks.update(context.command(ifMatch: try ETag.ifMatch(request)), try context.resourceId(), change)
            return EditedResponse(headers: [.eTag: ETag.header(view.version)], response: TaskDTO(view))
        }
        user.delete("{id}") { _, context in
            try await tasks.delete(context.command(), try context.resourceId())
            return Response(status: .noContent)
        }
        user.post("{id}/complete") { _, context in
            TaskDTO(try await tasks.complete(context.command(), try context.resourceId()))
        }
        user.post("{id}/uncomplete") { _, context in
            TaskDTO(try await tasks.uncomplete(context.command(), try context.resourceId()))
        }
    }
}
