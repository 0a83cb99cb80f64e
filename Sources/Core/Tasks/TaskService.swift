import Domain
import EventStore
import Foundation
import Logging
import Projections

/// Tasks: load, decide (`TaskDecider`), append; and the reads behind `/api/v1/tasks`.
public struct TaskService: AreaService {
    public typealias Filter = TasksReadModel.Filter

    let basis: ServiceBasis
    let tasks: TasksReadModel

    public init(_ basis: ServiceBasis) {
        self.basis = basis
        tasks = TasksReadModel(client: basis.client, logger: basis.logger)
    }

    /// Every task change appends to its series' stream at the version its state was read at, so
    /// two requests at once never both act on one state (no double next occurrence, no silently
    /// undone edit); If-Match compares with the task's own version.
    @discardableResult
    func execute(_ context: CommandContext, seriesOf taskId: UUID, _ command: TaskCommand) async throws -> CommandPath.Outcome {
        let owner = context.userId
        let time = try await calendar(owner).decisionTime(at: clock.now())
        // The first read names the series' stream and serves the first attempt; a retry reads again.
        var first: CommandPath.Loaded<TaskSeries?>? = .init(state: nil, streamVersion: 0)
        var seriesId = taskId
        if case .create = command {} else {
            guard let (series, version, taskVersion) = try await tasks.decisionState(owner, taskId) else { throw ResourceError.notFound }
            seriesId = series.seriesId
            first = .init(state: series, streamVersion: version, resourceVersion: taskVersion)
        }
        let stream = StreamName(id: TaskEvent.streamId(seriesId), ownerId: owner, type: TaskEvent.streamType)
        return try await commands.run(TaskDecider.self, stream: stream, command: command, context: context, time: time) {
            if let loaded = first {
                first = nil
                return loaded
            }
            if case .create = command { return .init(state: nil, streamVersion: 0) }
            guard let (series, version, taskVersion) = try await tasks.decisionState(owner, taskId) else {
                return .init(state: nil, streamVersion: 0)
            }
            return .init(state: series, streamVersion: version, resourceVersion: taskVersion)
        }
    }

    public func create(_ context: CommandContext, _ definition: TaskDefinition) async throws -> TaskView {
        let taskId = context.newId("task")
        try await execute(context, seriesOf: taskId, .create(id: taskId, definition))
        return try await task(context.userId, taskId)
    }

    public func update(_ context: CommandContext, _ taskId: UUID, _ change: TaskChange) async throws -> TaskView {
        try await execute(context, seriesOf: taskId, .change(taskId: taskId, change))
        return try await task(context.userId, taskId)
    }

    public func delete(_ context: CommandContext, _ taskId: UUID) async throws {
        try await execute(context, seriesOf: taskId, .delete(taskId: taskId))
    }

    /// Completes the task; a repeating one gets its next occurrence in the same append, due on
    /// the anchor's schedule (never chained from the previous due date).
    public func complete(_ context: CommandContext, _ taskId: UUID) async throws -> TaskView {
        try await execute(context, seriesOf: taskId, .complete(taskId: taskId, nextId: context.newId("next-task")))
        return try await task(context.userId, taskId)
    }

    /// Reopens the task and removes the occurrence its completion created, if that one is untouched.
    public func uncomplete(_ context: CommandContext, _ taskId: UUID) async throws -> TaskView {
        try await execute(context, seriesOf: taskId, .uncomplete(taskId: taskId))
        return try await task(context.userId, taskId)
    }

    // MARK: Queries

    func now(_ owner: UUID) async throws -> TaskClock {
        now(try await calendar(owner))
    }

    func now(_ calendar: UserCalendar) -> TaskClock {
        let instant = clock.now()
        return TaskClock(today: calendar.today(at: instant), date: calendar.wallDate(at: instant), time: calendar.timeOfDay(at: instant))
    }

    public func task(_ owner: UUID, _ taskId: UUID) async throws -> TaskView {
        guard let view = try await tasks.query(owner, filter: .all, taskId: taskId, after: nil, limit: 1, now: try await now(owner)).first else {
            throw ResourceError.notFound
        }
        return view
    }

    public func list(_ owner: UUID, filter: Filter, after: TaskCursor?, limit: Int) async throws -> [TaskView] {
        try await tasks.query(owner, filter: filter, taskId: nil, after: after, limit: limit, now: try await now(owner))
    }

    /// Open tasks due up to `through`, for the reminder job's batch of users.
    public func openDue(owners: [UUID], through: LocalDate) async throws -> [UUID: [ReminderAgenda.OpenTask]] {
        try await tasks.openDue(owners: owners, through: through)
    }

    /// The same, for a caller that has read the user's calendar already.
    public func list(_ owner: UUID, filter: Filter, calendar: UserCalendar, after: TaskCursor?, limit: Int) async throws -> [TaskView] {
        try await tasks.query(owner, filter: filter, taskId: nil, after: after, limit: limit, now: now(calendar))
    }
}
