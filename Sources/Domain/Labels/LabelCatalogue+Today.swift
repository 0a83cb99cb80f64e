/// The status words the Today view's items carry (`habit.*`, `task.*`, `savings.status.*`,
/// `budget.status.*`), so a home screen renders every word from the server.
extension LabelCatalogue {
    public static let todayKeys = [
        "today.title", "habit.due", "habit.done", "habit.not_due", "task.due_today", "task.overdue",
        "savings.status.paid", "savings.status.partial", "savings.status.upcoming", "savings.status.due_today", "savings.status.overdue",
        "budget.status.under", "budget.status.near", "budget.status.over",
    ]

    static let todayEnglish: [String: String] = [
        "today.title": "Today",
        "habit.due": "To do",
        "habit.done": "Done",
        "habit.not_due": "Not today",
        "task.due_today": "Due today",
        "task.overdue": "Overdue",
        "savings.status.paid": "Paid",
        "savings.status.partial": "Partly paid",
        "savings.status.upcoming": "Upcoming",
        "savings.status.due_today": "Due today",
        "savings.status.overdue": "Overdue",
        "budget.status.under": "Within budget",
        "budget.status.near": "Near the limit",
        "budget.status.over": "Over budget",
    ]

    static let todayRussian: [String: String] = [
        "today.title": "Сегодня",
        "habit.due": "Нужно сделать",
        "habit.done": "Сделано",
        "habit.not_due": "Не сегодня",
        "task.due_today": "Срок сегодня",
        "task.overdue": "Просрочено",
        "savings.status.paid": "Оплачено",
        "savings.status.partial": "Оплачено частично",
        "savings.status.upcoming": "Предстоит",
        "savings.status.due_today": "Срок сегодня",
        "savings.status.overdue": "Просрочено",
        "budget.status.under": "В рамках бюджета",
        "budget.status.near": "Близко к лимиту",
        "budget.status.over": "Бюджет превышен",
    ]

    static let todaySerbian: [String: String] = [
        "today.title": "Danas",
        "habit.due": "Za uraditi",
        "habit.done": "Urađeno",
        "habit.not_due": "Ne danas",
        "task.due_today": "Rok danas",
        "task.overdue": "Kasni",
        "savings.status.paid": "Plaćeno",
        "savings.status.partial": "Delimično plaćeno",
        "savings.status.upcoming": "Predstoji",
        "savings.status.due_today": "Rok danas",
        "savings.status.overdue": "Kasni",
        "budget.status.under": "U okviru budžeta",
        "budget.status.near": "Blizu granice",
        "budget.status.over": "Budžet prekoračen",
    ]
}
