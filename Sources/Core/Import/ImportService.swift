import Crypto
import Domain
import EventStore
import Foundation
import Projections

/// Imports (issue 29): lifelog's own export, Loop Habit Tracker's CSV export and Firefly III's
/// transactions CSV, into one account. Reading a file is pure (`Domain/Import`); here each item
/// becomes commands of the areas' services (load, decide, append, as any request), one area's
/// calls in one file (`ImportService+Habits.swift`, `+Finance`, …).
///
/// An import is idempotent: every command's ids (the new resource's, its events') derive from
/// the account and the item's key in the file (`context(_:_:)`), so the same file again finds
/// each item stored (a duplicate) instead of storing it twice, and a reference in the file (a
/// log's habit, a transaction's category) is the same derivation of the id it names.
public struct ImportService: Sendable {
    let habits: HabitService
    let tasks: TaskService
    let finance: FinanceService
    let savings: SavingsService
    let health: HealthService
    let profiles: ProfileService
    let store: PostgresEventStore
    let clock: any WallClock
    /// How many streams an import writes at once (a lane per stream; one stream's items in order).
    let width: Int

    public init(services: Services, profiles: ProfileService, width: Int = 6) {
        habits = services.habits
        tasks = services.tasks
        finance = services.finance
        savings = services.savings
        health = services.health
        self.profiles = profiles
        store = services.habits.commands.store
        clock = services.habits.clock
        self.width = max(1, width)
    }

    /// The command context of the item `key` in `owner`'s import: its seed makes every id the
    /// command creates, and its events' ids, the same each time the item is imported.
    func context(_ owner: UUID, _ key: String) -> CommandContext {
        var message = Data("lifelog-import".utf8)
        for part in [owner.uuidString.lowercased(), key] {
            message.append(0)
            message.append(Data(part.utf8))
        }
        return CommandContext(userId: owner, idempotencySeed: Array(SHA256.hash(data: message)))
    }

    /// The id the item `key` gives the resource it creates (`purpose` as its service names it:
    /// "habit", "category", …): what a reference to it elsewhere in the file maps to.
    func id(_ owner: UUID, _ key: String, _ purpose: String) -> UUID {
        context(owner, key).newId(purpose)
    }

    /// The account's logical today (a habit's window of history ends ten years before it).
    func today(_ owner: UUID) async throws -> LocalDate {
        try await habits.calendar(owner).today(at: clock.now())
    }

    /// Runs one item's steps, in order, and says what became of it: a duplicate when each step
    /// was stored before (or changed nothing), imported when one stored something, failed with
    /// the reason of the first step the rules refused (the later ones are not run). A dry run
    /// only looks whether the item's first step is stored. Errors that are no refusal (the
    /// database gone) end the import.
    func perform(_ owner: UUID, _ steps: [ImportStep], dryRun: Bool) async throws -> ImportOutcome {
        var stored = false
        for (index, step) in steps.enumerated() {
            let context = self.context(owner, step.key)
            let before = try await store.isStored(eventId: context.eventId(0))
            if dryRun { return index == 0 && before ? .duplicate : .imported }
            if before { continue }
            do {
                let appended = try await step.run(context)
                let storedNow = if let appended { appended } else { try await store.isStored(eventId: context.eventId(0)) }
                stored = stored || storedNow
            } catch {
                guard let reason = Self.reason(error) else { throw error }
                return .failed(reason)
            }
        }
        return stored ? .imported : .duplicate
    }

    /// Why the rules refused a step, in words for `line N: reason`; nil for an error that is
    /// not a refusal. The one place an import's errors are mapped.
    static func reason(_ error: any Error) -> String? {
        switch error {
        case let refusal as ImportRefusal: refusal.reason
        case let unreadable as LifelogImportLine.Unreadable: unreadable.reason
        case ResourceError.notFound: "refers to something this account does not have"
        case let problem as any ProblemDescribing: problem.detail
        default: nil
        }
    }
}

/// One command of an imported item: its key (what its ids derive from) and the call that runs
/// it, which answers whether it stored anything (nil: look in the log).
struct ImportStep: Sendable {
    let key: String
    let run: @Sendable (CommandContext) async throws -> Bool?

    init(_ key: String, _ run: @escaping @Sendable (CommandContext) async throws -> Bool?) {
        self.key = key
        self.run = run
    }
}

/// A refusal an importer words itself (a reference to an item the file does not have).
struct ImportRefusal: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// A file that is not what its importer reads (not a lifelog export, no `Habits.csv`): nothing
/// of it is imported. 422 at the API.
public struct ImportFileError: ProblemDescribing, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var status: Int { 422 }
    public var slug: String { "validation" }
    public var title: String { "Invalid request" }
    public var detail: String { reason }
    public var fieldErrors: [FieldError] { [FieldError("body", reason)] }
    public var description: String { reason }
}
