import Foundation

extension LifelogImportLine {
    /// Reads one line of an export. `number` names the line in a health record's error path
    /// (`line[12]`). Throws `Unreadable` with the reason (a field missing or of the wrong kind, a
    /// type this version does not know). Over 60 lines: one case per kind of line.
    public static func read(_ text: String, number: Int) throws(Unreadable) -> LifelogImportLine {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch { throw Unreadable("not a JSON object") }
        guard let json = object as? [String: Any] else { throw Unreadable("not a JSON object") }
        let line = LineFields(json)
        guard let type = json["type"] as? String else {
            if json["format"] != nil { return try header(line) }
            throw Unreadable("no type")
        }
        if let reason = notCarried[type] { return .notCarried(reason: reason) }
        switch type {
        case "end": return .end(lines: try line.int("lines"))
        case "profile":
            return .profile(Profile(sourceId: try line.uuid("id"), name: try line.string("name"), timezone: try line.string("timezone"),
                                    dayStartHour: try line.optionalInt("day_start_hour"), weekStart: try line.optionalInt("week_start"),
                                    currency: try line.string("currency"), language: try line.string("language")))
        case "reminder_settings":
            return .reminderSettings(morningTime: try line.string("morning_time"), eveningTime: try line.string("evening_time"),
                                     enabledKinds: try line.strings("enabled_kinds"))
        case "source_priority":
            let kinds = try line.strings("order") ?? []
            let known = kinds.compactMap(HealthSourceKind.init(rawValue:))
            guard known.count == kinds.count else { throw Unreadable("order: each must be one of \(HealthSourceKind.allCases.map(\.rawValue).joined(separator: ", "))") }
            return .sourcePriority(known)
        case "habit": return .habit(try habit(line))
        case "habit_log":
            return .habitLog(habitId: try line.uuid("habit_id"), date: try line.date("date"), value: try line.decimal("value"))
        case "freeze":
            let freeze = try line.validated(Habit.Freeze.self, HabitFreezeDraft(from: try line.required("from"), to: try line.required("to"),
                                                                                 reason: try line.string("reason")))
            return .freeze(id: try line.uuid("id"), habitId: try line.uuid("habit_id"), freeze)
        case "task": return .task(try task(line))
        case "finance_category":
            guard let kind = MoneyFlow(rawValue: try line.required("kind")) else { throw Unreadable("kind: must be income or expense") }
            return .category(CategoryLine(id: try line.uuid("id"), name: try line.required("name"), emoji: try line.string("emoji"), kind: kind,
                                          color: try line.string("color"), archived: try line.bool("archived")))
        case "budget":
            return .budget(BudgetLine(categoryId: try line.uuid("category_id"), fromMonth: try line.month("from_month"),
                                      amount: try line.string("amount"), currency: try line.string("currency")))
        case "transaction":
            guard let kind = MoneyFlow(rawValue: try line.required("kind")) else { throw Unreadable("kind: must be income or expense") }
            return .transaction(TransactionLine(id: try line.uuid("id"), kind: kind, amount: try line.required("amount"),
                                                currency: try line.required("currency"), categoryId: try line.optionalUUID("category_id"),
                                                date: try line.date("date"), note: try line.string("note")))
        case "savings_goal":
            return .savingsGoal(SavingsGoalLine(id: try line.uuid("id"), name: try line.required("name"), emoji: try line.string("emoji"),
                                                currency: try line.required("currency"), targetAmount: try line.string("target_amount"),
                                                targetDate: try line.optionalDate("target_date")))
        case "plan": return .plan(try plan(line))
        case "savings_movement":
            return .savingsMovement(MovementLine(id: try line.uuid("id"), goalId: try line.uuid("goal_id"), kind: try line.required("kind"),
                                                 amount: try line.required("amount"), currency: try line.required("currency"),
                                                 date: try line.date("date"), occurrence: try line.optionalDate("occurrence"),
                                                 note: try line.string("note")))
        case "health_sample", "sleep_segment", "workout": return try healthRecord(type, line, path: "line[\(number)]")
        case "manual_value":
            guard let metric = HealthMetric(rawValue: try line.required("metric")) else { throw Unreadable("metric: not a metric lifelog knows") }
            return .manualValue(metric: metric, date: try line.date("date"), value: try line.double("value"))
        case "checkin":
            return .checkIn(date: try line.date("date"), feeling: try line.int("feeling"), note: try line.string("note"))
        default:
            throw Unreadable("type \(type) is not one this version of lifelog imports")
        }
    }

    static func header(_ line: LineFields) throws(Unreadable) -> LifelogImportLine {
        guard try line.string("format") == format else { throw Unreadable("format: not a lifelog export (\(format))") }
        let version = try line.int("version")
        guard (1...newestVersion).contains(version) else {
            throw Unreadable("version: \(version) is newer than this lifelog reads (\(newestVersion)); upgrade lifelog first")
        }
        return .header(version: version)
    }

    static func habit(_ line: LineFields) throws(Unreadable) -> HabitLine {
        var schedules: [HabitFacts.ScheduleChange] = []
        for (index, entry) in try line.objects("schedules").enumerated() {
            let fields = LineFields(entry, prefix: "schedules[\(index)].")
            schedules.append(.init(from: try fields.date("from"), schedule: try fields.decoded(HabitSchedule.self, "schedule")))
        }
        let schedule: HabitSchedule
        if let first = schedules.first { schedule = first.schedule } else { schedule = try line.decoded(HabitSchedule.self, "schedule") }
        let draft = HabitDraft(name: try line.required("name"), emoji: try line.string("emoji"), color: try line.string("color"),
                               kind: try line.required("kind"), target: try line.decimal("target"), unit: try line.string("unit"),
                               schedule: schedule, startDate: try line.string("start_date"), reminderTime: try line.string("reminder_time"))
        return HabitLine(id: try line.uuid("id"), definition: try line.validated(HabitDefinition.self, draft),
                         laterSchedules: Array(schedules.dropFirst()), archived: try line.bool("archived"))
    }

    static func task(_ line: LineFields) throws(Unreadable) -> TaskLine {
        let draft = TaskDraft(title: try line.required("title"), notes: try line.string("notes"), priority: try line.optionalInt("priority"),
                              dueDate: try line.string("due_date"), dueTime: try line.string("due_time"),
                              repeat: try line.optionalDecoded(TaskRepeat.self, "repeat"))
        let id = try line.uuid("id")
        return TaskLine(id: id, seriesId: try line.optionalUUID("series_id") ?? id, definition: try line.validated(TaskDefinition.self, draft),
                        completed: try line.bool("completed"), nextTaskId: try line.optionalUUID("next_task_id"))
    }

    static func plan(_ line: LineFields) throws(Unreadable) -> PlanLine {
        let change: PlanLine.Change
        switch try line.required("kind") {
        case "set":
            guard let anchor = SavingsAnchorDay(try line.required("anchor_day")) else { throw Unreadable("anchor_day: must be 1 to 31 or last") }
            change = .set(amount: try line.required("amount"), anchorDay: anchor, everyMonths: try line.optionalInt("every_months") ?? 1,
                          startMonth: try line.month("start_month"), endMonth: try line.optionalMonth("end_month"))
        case "ended": change = .ended(after: try line.date("ended_after"))
        default: throw Unreadable("kind: must be set or ended")
        }
        return PlanLine(goalId: try line.uuid("goal_id"), seq: Int64(try line.int("seq")), change: change)
    }

    static func healthRecord(_ type: String, _ line: LineFields, path: String) throws(Unreadable) -> LifelogImportLine {
        let kindName = try line.string("source_kind") ?? ""
        guard let kind = HealthSourceKind(rawValue: kindName) else { throw Unreadable("source_kind: not a kind of source lifelog knows") }
        let source = HealthSource(name: try line.required("source"), kind: kind, bundleId: try line.string("source_bundle"))
        let (uuid, start, end) = (try line.string("uuid"), try line.instant("start"), try line.instant("end"))
        switch type {
        case "health_sample":
            guard let series = HealthIntake.Series(rawValue: try line.string("series") ?? "sample") else { throw Unreadable("series: must be sample or summary") }
            return .healthSample(HealthIntake.Sample(
                uuid: uuid, metric: try line.required("metric"), value: try line.double("value"), unit: nil, start: start, end: end,
                source: source, series: series, path: path, localDate: try line.optionalDate("date"),
                min: try line.optionalDouble("min"), max: try line.optionalDouble("max")))
        case "sleep_segment":
            return .sleepSegment(HealthIntake.Sleep(uuid: uuid, stage: try line.required("stage"), start: start, end: end, source: source, path: path))
        default:
            return .workout(HealthIntake.Workout(
                uuid: uuid, type: try line.required("workout_type"), start: start, end: end,
                activeEnergyKcal: try line.optionalDouble("active_energy_kcal"), distanceM: try line.optionalDouble("distance_m"),
                avgHeartRate: try line.optionalDouble("avg_heart_rate"), source: source, path: path))
        }
    }
}
