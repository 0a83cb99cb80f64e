import Core
import Domain
import Foundation
import Hummingbird

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
    var version: Int

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
        version = view.revision
    }
}

/// `/api/v1/tasks*`.
struct TaskRoutes {
    let tasks: TaskService

    func register(on api: RouterGroup<AppRequestContext>) {
        let tasks = self.tasks
        let user = api.group("tasks", context: UserRequestContext.self)
        user.post { request, context in
            let draft = try await request.json(TaskService.Draft.self, context: context)
            let view = try await tasks.create(context.userId, draft)
            return EditedResponse(status: .created, headers: [.eTag: ETag.header(Int64(view.revision))], response: TaskDTO(view))
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
            return EditedResponse(headers: [.eTag: ETag.header(Int64(view.revision))], response: TaskDTO(view))
        }
        user.patch("{id}") { request, context in
            let change = try await request.json(TaskService.Change.self, context: context)
            let view = try await tasks.update(context.userId, try context.resourceId(), change, ifMatch: try ETag.ifMatch(request).map { Int($0) })
            return EditedResponse(headers: [.eTag: ETag.header(Int64(view.revision))], response: TaskDTO(view))
        }
        user.delete("{id}") { _, context in
            try await tasks.delete(context.userId, try context.resourceId())
            return Response(status: .noContent)
        }
        user.post("{id}/complete") { _, context in
            TaskDTO(try await tasks.complete(context.userId, try context.resourceId()))
        }
        user.post("{id}/uncomplete") { _, context in
            TaskDTO(try await tasks.uncomplete(context.userId, try context.resourceId()))
        }
    }
}
