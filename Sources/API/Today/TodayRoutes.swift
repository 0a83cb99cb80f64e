import Core
import Domain
import Foundation
import Hummingbird
import Projections

struct TodayDTO: ResponseEncodable {
    struct Savings: Encodable, Sendable {
        var dueSoon: [SavingsOccurrenceDTO]
        var overdue: [SavingsOccurrenceDTO]
    }
    struct Health: Encodable, Sendable {
        var date: String
        @NullWhenEmpty var score: Double? = nil
        var status: String
        var statusLabel: String
        var colorToken: String
        var formulaVersion: String
        var daysUntilReady: Int?

        enum CodingKeys: String, CodingKey { case date, score, status, statusLabel, colorToken, formulaVersion, daysUntilReady }
    }

    var date: String
    var habits: [HabitDTO]
    var tasks: [TaskDTO]
    var savings: Savings
    var finance: SummaryDTO
    @NullWhenEmpty var health: Health? = nil
    var reminders: [ReminderDTO]
    var labels: [String: String]

    init(_ view: TodayView, language: Language) {
        date = view.date.description
        habits = view.habits.map(HabitDTO.init)
        tasks = view.tasks.map(TaskDTO.init)
        savings = Savings(dueSoon: view.dueSoon.map { SavingsOccurrenceDTO($0.1, goal: $0.0.goal) },
                          overdue: view.overdue.map { SavingsOccurrenceDTO($0.1, goal: $0.0.goal) })
        finance = SummaryDTO(view.finance)
        health = view.recovery.map { score in
            Health(date: score.date.description, score: score.score, status: score.status.rawValue,
                   statusLabel: LabelCatalogue.text(LabelCatalogue.status(score.status), language), colorToken: score.status.colorToken,
                   formulaVersion: score.formulaVersion, daysUntilReady: score.daysUntilReady)
        }
        reminders = view.reminders.map { ReminderDTO($0, language: language) }
        let keys = LabelCatalogue.todayKeys + ReminderStatus.allCases.map { "reminder.status.\($0.rawValue)" }
        labels = Dictionary(uniqueKeysWithValues: keys.map { ($0, LabelCatalogue.text($0, language)) })
    }

    enum CodingKeys: String, CodingKey { case date, habits, tasks, savings, finance, health, reminders, labels }
}

/// The home screen in one call (`/api/v1/today`).
public struct TodayArea: Area {
    public static let name = "Today"
    public static let projectors: [any Projector] = []
    public static let openAPIPart = "today"
    let today: TodayService

    public init(_ context: AreaContext) {
        today = context.services.today
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        let today = self.today
        api.group("today", context: UserRequestContext.self).get { request, context in
            var date: LocalDate?
            if let raw = request.query("date") {
                guard let parsed = LocalDate(input: raw) else { throw ValidationFailure("date", LocalDate.inputRule) }
                date = parsed
            }
            let view = try await today.today(context.userId, date: date)
            return TodayDTO(view, language: try await RequestLanguage.resolve(request) { view.userLanguage })
        }
    }
}
