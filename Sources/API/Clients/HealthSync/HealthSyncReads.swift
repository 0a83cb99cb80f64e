import Domain
import Foundation
import Projections

/// health-sync's screens (CONTRACTS §1.6), answered from lifelog's own reads: the briefing and
/// its label catalogue, the recovery score, the day and night read models. The app decodes
/// strictly (a missing required field, a `null` array or a fraction where it wants an `Int`
/// blanks the screen), so every answer here is built to its model; what lifelog does not
/// compute is left out where the model allows, or answered empty, never made up.
enum HealthSyncReads {
    /// A metric under the name health-sync gives it, in the unit it shows.
    struct AppMetric: Sendable {
        var name: String
        var metric: HealthMetric
        var units: String
        /// lifelog's unit × scale = the app's unit (metres to kilometres).
        var scale: Double
        /// How the day's figure is made, in the app's words.
        var agg: String
    }

    static let metrics: [AppMetric] = [
        AppMetric(name: "step_count", metric: .steps, units: "count", scale: 1, agg: "SUM"),
        AppMetric(name: "walking_running_distance", metric: .distance, units: "km", scale: 0.001, agg: "SUM"),
        AppMetric(name: "active_energy", metric: .activeEnergy, units: "kcal", scale: 1, agg: "SUM"),
        AppMetric(name: "heart_rate", metric: .heartRate, units: "bpm", scale: 1, agg: "AVG"),
        AppMetric(name: "resting_heart_rate", metric: .restingHeartRate, units: "bpm", scale: 1, agg: "AVG"),
        AppMetric(name: "heart_rate_variability", metric: .hrvSdnn, units: "ms", scale: 1, agg: "AVG"),
        AppMetric(name: "blood_oxygen_saturation", metric: .spo2, units: "%", scale: 1, agg: "AVG"),
        AppMetric(name: "respiratory_rate", metric: .respiratoryRate, units: "count/min", scale: 1, agg: "AVG"),
        AppMetric(name: "body_mass", metric: .bodyMass, units: "kg", scale: 1, agg: "LAST"),
        AppMetric(name: "body_fat_percentage", metric: .bodyFat, units: "%", scale: 1, agg: "LAST"),
        AppMetric(name: "vo2_max", metric: .vo2Max, units: "mL/(kg·min)", scale: 1, agg: "LAST"),
    ]

    static func appMetric(_ metric: HealthMetric) -> AppMetric? { metrics.first { $0.metric == metric } }

    /// The night's figures under the app's sleep metrics, in hours.
    static let sleepMetrics: [(name: String, hours: @Sendable (SleepNight) -> Double)] = [
        ("sleep_total", { Double($0.asleepMinutes) / 60 }),
        ("sleep_deep", { Double($0.deepMinutes) / 60 }),
        ("sleep_rem", { Double($0.remMinutes) / 60 }),
        ("sleep_core", { Double($0.coreMinutes) / 60 }),
        ("sleep_unspecified", { Double(max(0, $0.asleepMinutes - $0.deepMinutes - $0.remMinutes - $0.coreMinutes)) / 60 }),
        ("sleep_awake", { Double($0.awakeMinutes) / 60 }),
    ]

    /// What the app asks for by name: one of lifelog's metrics, or one of the night's figures.
    enum Named {
        case metric(AppMetric)
        case sleep(name: String, hours: @Sendable (SleepNight) -> Double)
    }

    static func named(_ name: String) -> Named? {
        if let metric = metrics.first(where: { $0.name == name }) { return .metric(metric) }
        if let sleep = sleepMetrics.first(where: { $0.name == name }) { return .sleep(name: sleep.name, hours: sleep.hours) }
        return nil
    }

    // MARK: Words and figures

    /// The app's badge statuses are good, fair and low; lifelog's other statuses (neutral,
    /// calibrating, unscorable) go as they are.
    static func status(_ status: String) -> String { status == "poor" ? "low" : status }

    /// The readiness band health-sync colours by.
    static func band(_ status: RecoveryScore.Status) -> String? {
        switch status {
        case .good: "optimal"
        case .fair: "fair"
        case .poor: "low"
        case .calibrating, .unscorable: nil
        }
    }

    static func statusLabel(_ status: String, _ language: Language) -> String? {
        guard let known = RecoveryScore.Status(rawValue: status) else { return nil }
        return LabelCatalogue.text(LabelCatalogue.status(known), language)
    }

    static func label(_ metric: String, _ language: Language) -> String {
        if let known = HealthMetric(rawValue: metric) { return LabelCatalogue.text(LabelCatalogue.metric(known), language) }
        return LabelCatalogue.text("client.sleep.\(metric)", language)
    }

    /// A figure as a person reads it: minutes as a duration, counts whole, the rest to a tenth.
    static func figure(_ value: Double, unit: String, _ language: Language) -> (value: String, unit: String) {
        switch unit {
        case "min": (LabelFormat.duration(minutes: value, language), "")
        case "count": (LabelFormat.integer(value, language), "")
        case "kcal", "m": (LabelFormat.integer(value, language), unit)
        case "count/min": (LabelFormat.integer(value, language), "bpm")
        default: (LabelFormat.tenths(value, language), unit)
        }
    }

    static func detail(_ delta: Briefing.Delta, _ language: Language) -> [String: Any] {
        let shown = figure(delta.value, unit: delta.unit, language)
        var detail: [String: Any] = ["label": label(delta.metric, language), "value": [shown.value, shown.unit].filter { !$0.isEmpty }.joined(separator: " ")]
        if let baseline = delta.baseline {
            let usual = figure(baseline, unit: delta.unit, language)
            detail["note"] = LabelFormat.fill("client.detail.usual", language, ["value": [usual.value, usual.unit].filter { !$0.isEmpty }.joined(separator: " ")])
        }
        if let direction = delta.direction { detail["trend"] = direction.rawValue }
        return detail
    }

    static let icons: [Briefing.SectionKey: String] = [.recovery: "leaf", .sleep: "moon", .activity: "activity", .cardio: "heart", .body: "body"]

    // MARK: Screens

    /// `/api/settings`: the zone, the language (which the app sends back as `?lang=`), the name.
    static func settings(_ profile: UserProfile) -> [String: Any] {
        ["timezone": profile.timezone, "report_lang": profile.language.rawValue, "username": profile.name, "is_admin": false]
    }

    /// `/api/health-briefing`: lifelog's briefing in the app's `BriefingResponse`.
    static func briefing(_ briefing: Briefing, score: RecoveryScore, language: Language) -> [String: Any] {
        var answer: [String: Any] = [
            "date": briefing.date.description,
            "overall": band(score.status).map { $0 == "optimal" ? "good" : $0 } ?? "",
            "sections": briefing.sections.map { section -> [String: Any] in
                var out: [String: Any] = [
                    "key": section.key.rawValue, "title": section.title, "status": status(section.status), "summary": section.summary,
                    "details": section.deltas.map { detail($0, language) },
                ]
                if let icon = icons[section.key] { out["icon"] = icon }
                if let label = statusLabel(section.status, language) { out["status_label"] = label }
                return out
            },
            "highlights": [Any](),
            "metric_cards": briefing.sections.flatMap(\.deltas).map { delta -> [String: Any] in
                let shown = figure(delta.value, unit: delta.unit, language)
                var card: [String: Any] = ["name": label(delta.metric, language), "metric": appName(delta.metric), "value": shown.value, "unit": shown.unit]
                if let percent = delta.changePercent { card["trend_pct"] = percent }
                if let direction = delta.direction { card["trend_label"] = direction.rawValue }
                if let good = delta.good { card["trend_status"] = good ? "good" : "bad" }
                return card
            },
        ]
        if let value = score.score, let band = band(score.status) {
            answer["readiness_score"] = ClientFigures.integer(value)
            answer["readiness_band"] = band
            answer["readiness_label"] = LabelCatalogue.text(LabelCatalogue.status(score.status), language)
        }
        if let recommendation = briefing.blocks.recommendation { answer["readiness_tip"] = recommendation }
        return answer
    }

    /// The app's name of a delta's metric (a night's figure goes under its sleep metric).
    static func appName(_ metric: String) -> String {
        switch metric {
        case "asleep_minutes": "sleep_total"
        case "deep_minutes": "sleep_deep"
        case "rem_minutes": "sleep_rem"
        default: HealthMetric(rawValue: metric).flatMap(appMetric)?.name ?? metric
        }
    }

    /// `/api/ai-briefing`: no model is called. The four blocks are the briefing's own texts,
    /// written by rules from the figures; the recommendation says so, since that is what the app shows.
    static func aiBriefing(_ briefing: Briefing, language: Language) -> [String: Any] {
        let note = LabelCatalogue.text("client.ai_briefing.rule_based", language)
        let blocks = briefing.blocks
        let recommendation = [blocks.recommendation, note].compactMap { $0 }.joined(separator: " ")
        let named: [(String, String?)] = [("SLEEP", blocks.sleep), ("YESTERDAY", blocks.yesterday), ("RECOVERY", blocks.recovery),
                                          ("RECOMMENDATION", recommendation)]
        var answer: [String: Any] = [
            "date": briefing.date.description, "lang": language.rawValue,
            "insight": named.compactMap(\.1).joined(separator: "\n\n"),
            "blocks": Dictionary(uniqueKeysWithValues: named.compactMap { key, text in text.map { (key, $0) } }),
            "recommendation": recommendation, "generating": false, "disabled": false, "generator": "rules", "note": note,
        ]
        if let sleep = blocks.sleep { answer["sleep"] = sleep }
        if let yesterday = blocks.yesterday { answer["yesterday"] = yesterday }
        if let recovery = blocks.recovery { answer["recovery"] = recovery }
        return answer
    }

    /// `/api/today-insights`: the day's one insight is the recovery score and what follows from it.
    static func todayInsights(_ briefing: Briefing, score: RecoveryScore, snapshot: String, language: Language) -> [String: Any] {
        let recovery = briefing.sections.first { $0.key == .recovery }
        return [
            "date": briefing.date.description,
            "decision_id": "\(score.formulaVersion):\(briefing.date):\(score.status.rawValue)",
            "snapshot_version": snapshot,
            "generation": ["state": "ready", "fresh_for_snapshot": true, "narrative_mode": "rules"] as [String: Any],
            "primary": [
                "state": score.status.rawValue,
                "title": LabelCatalogue.text("briefing.section.recovery", language),
                "observation": briefing.blocks.recovery ?? recovery?.summary ?? LabelCatalogue.text("briefing.recovery.summary_unscorable", language),
                "meaning": briefing.blocks.recommendation ?? "",
                "evidence_ids": [String](), "fallback": true,
            ] as [String: Any],
            "domains": [Any](), "evidence": [Any](), "changes": [Any](), "has_more": false,
        ]
    }

    /// `/api/readiness-history`: the dates with a score, the score as a whole number.
    static func readinessHistory(_ scores: [RecoveryScore]) -> [String: Any] {
        ["points": scores.compactMap { score -> [String: Any]? in
            score.score.map { ["date": score.date.description, "score": ClientFigures.integer($0)] }
        }]
    }

    /// `/api/sections`: the briefing's sections, each with the words the app lists.
    static func sections(_ language: Language) -> [String: Any] {
        ["sections": Briefing.SectionKey.allCases.map { key in
            ["key": key.rawValue, "title": LabelCatalogue.text("briefing.section.\(key.rawValue)", language),
             "subtitle": LabelCatalogue.text("client.section.\(key.rawValue).subtitle", language), "icon": icons[key] ?? "generic"]
        }]
    }

    /// The charts of a section's page; the app fetches each one's days from `/api/metrics/data`
    /// (a `virtual` chart from `/api/readiness-history`, a `stacked` one as the sleep stages).
    static func charts(_ key: Briefing.SectionKey, _ language: Language) -> [[String: Any]] {
        func chart(_ metric: HealthMetric, type: String) -> [String: Any] {
            let app = appMetric(metric)
            return ["label": LabelCatalogue.text(LabelCatalogue.metric(metric), language), "metric": app?.name ?? metric.rawValue,
                    "agg": app?.agg ?? "AVG", "unit": app?.units ?? metric.unit, "type": type]
        }
        switch key {
        case .recovery: return [["label": LabelCatalogue.text("briefing.section.recovery", language), "virtual": true, "type": "line"]]
        case .sleep: return [["label": LabelCatalogue.text("briefing.section.sleep", language), "stacked": true, "type": "bar", "unit": "hr"]]
        case .activity: return [chart(.steps, type: "bar"), chart(.activeEnergy, type: "bar"), chart(.distance, type: "bar")]
        case .cardio: return [chart(.restingHeartRate, type: "line"), chart(.hrvSdnn, type: "line"), chart(.spo2, type: "line"),
                              chart(.respiratoryRate, type: "line")]
        case .body: return [chart(.bodyMass, type: "line"), chart(.bodyFat, type: "line")]
        }
    }

    /// `/api/section/{key}`: the section of today's briefing (its summary and figures, or "no
    /// data yet"), its charts, and how it is measured.
    static func section(_ key: Briefing.SectionKey, briefing: Briefing, language: Language) -> [String: Any] {
        let found = briefing.sections.first { $0.key == key }
        let methodology = found?.methodologyLabel
            ?? LabelCatalogue.text(key == .recovery ? LabelCatalogue.methodology : "methodology.device_measured", language)
        return [
            "key": key.rawValue,
            "title": LabelCatalogue.text("briefing.section.\(key.rawValue)", language),
            "summary": found?.summary ?? LabelCatalogue.text("client.section.no_data", language),
            "details": (found?.deltas ?? []).map { detail($0, language) },
            "charts": charts(key, language),
            "explains": [["title": LabelCatalogue.text("client.section.explain", language), "body": methodology]],
        ]
    }

    /// `/api/metrics`: every metric with days, and the night's figures when there are nights.
    static func metricList(_ spans: [HealthReadModel.MetricSpan], nights: (days: Int, first: LocalDate, last: LocalDate)?,
                           language: Language) -> [[String: Any]] {
        var list: [[String: Any]] = spans.compactMap { span in
            guard let app = appMetric(span.metric) else { return nil }
            return ["name": app.name, "units": app.units, "count": span.days, "min": span.first.description, "max": span.last.description,
                    "display_name": LabelCatalogue.text(LabelCatalogue.metric(span.metric), language)]
        }
        if let nights {
            for (name, _) in sleepMetrics {
                list.append(["name": name, "units": "hr", "count": nights.days, "min": nights.first.description, "max": nights.last.description,
                             "display_name": name == "sleep_total" ? LabelCatalogue.text("client.sleep.asleep_minutes", language)
                                : LabelCatalogue.text("briefing.section.sleep", language) + " · " + String(name.dropFirst(6))])
            }
        }
        return list
    }

    /// One day's point: the figure (and the day's extremes, for a mean).
    static func point(_ day: HealthDay, scale: Double) -> [String: Any] {
        var point: [String: Any] = ["date": day.date.description, "qty": ClientFigures.decimal(day.value * scale, places: 3)]
        if let min = day.min { point["min"] = ClientFigures.decimal(min * scale, places: 3) }
        if let max = day.max { point["max"] = ClientFigures.decimal(max * scale, places: 3) }
        return point
    }

    /// `/api/metrics/data` for one of lifelog's metrics; by source, each day under the source
    /// that decided it (lifelog keeps one figure per day, its source's).
    static func metricData(_ app: AppMetric, days: [HealthDay], bySource: Bool) -> [String: Any] {
        var answer: [String: Any] = ["metric": app.name, "bucket": "day", "agg": app.agg, "points": days.map { point($0, scale: app.scale) },
                                     "by_source": bySource]
        if bySource {
            let grouped = Dictionary(grouping: days) { $0.source ?? "" }
            answer["points_by_source"] = grouped.keys.sorted().map { source in
                ["source": source, "points": (grouped[source] ?? []).map { point($0, scale: app.scale) }] as [String: Any]
            }
        }
        return answer
    }

    /// `/api/metrics/data` for a night's figure, in hours, dated by the night's date.
    static func sleepData(_ name: String, hours: @escaping (SleepNight) -> Double, nights: [SleepNight], bySource: Bool) -> [String: Any] {
        let point = { (night: SleepNight) -> [String: Any] in ["date": night.date.description, "qty": ClientFigures.decimal(hours(night), places: 3)] }
        var answer: [String: Any] = ["metric": name, "bucket": "day", "agg": "SUM", "points": nights.map(point), "by_source": bySource]
        if bySource {
            let grouped = Dictionary(grouping: nights, by: \.source)
            answer["points_by_source"] = grouped.keys.sorted().map { source in
                ["source": source, "points": (grouped[source] ?? []).map(point)] as [String: Any]
            }
        }
        return answer
    }
}
