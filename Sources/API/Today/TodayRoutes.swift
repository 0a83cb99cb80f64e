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
        var score: Double?
        var status: String
        var statusLabel: String
        var colorToken: String
        var formulaVersion: String
        var daysUntilReady: Int?

        // score is null, not absent, while calibrating or unscorable.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(date, forKey: .date)
            try container.encode(score, forKey: .score)
            try container.encode(status, forKey: .status)
            try container.encode(statusLabel, forKey: .statusLabel)
            try container.encode(colorToken, forKey: .colorToken)
            try container.encode(formulaVersion, forKey: .formulaVersion)
            try container.encodeIfPresent(daysUntilReady, forKey: .daysUntilReady)
        }

        enum CodingKeys: String, CodingKey { case date, score, status, statusLabel, colorToken, formulaVersion, daysUntilReady }
    }

    var date: String
    var habits: [HabitDTO]
    var tasks: [TaskDTO]
    var savings: Savings
    var finance: SummaryDTO
    var health: Health?
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

    // `health` is null, not absent, when there is no health data.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(habits, forKey: .habits)
        try container.encode(tasks, forKey: .tasks)
        try container.encode(savings, forKey: .savings)
        try container.encode(finance, forKey: .finance)
        try container.encode(health, forKey: .health)
        try container.encode(reminders, forKey: .reminders)
        try container.encode(labels, forKey: .labels)
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
