import Foundation

/// What a "Today" screen shows of health, ready to render: sections with deltas against the
/// user's baseline, short texts from templates in the asked language, the check-in and how
/// fresh each section's data is. Pure: the same figures give the same words.
public struct Briefing: Equatable, Sendable {
    public enum SectionKey: String, CaseIterable, Sendable {
        case recovery, sleep, activity, cardio, body
    }

    public enum Direction: String, Sendable {
        case up, down, flat
    }

    public struct Delta: Equatable, Sendable {
        public var metric: String
        public var value: Double
        public var unit: String
        /// The mean of the 60 dates before (days with data; at least 7), nil without one.
        public var baseline: Double?
        public var change: Double?
        public var changePercent: Double?
        public var direction: Direction?
        /// Whether the change is good news; nil when flat or when neither way is better.
        public var good: Bool?
    }

    public struct Section: Equatable, Sendable {
        public var key: SectionKey
        public var title: String
        public var summary: String
        /// good, fair, poor, neutral (no judgement), or the score's calibrating and unscorable.
        public var status: String
        public var colorToken: String
        public var deltas: [Delta]
        public var methodologyClass: String
        public var methodologyLabel: String
    }

    public struct Blocks: Equatable, Sendable {
        public var sleep: String?
        public var yesterday: String?
        public var recovery: String?
        public var recommendation: String?
    }

    public var date: LocalDate
    public var sections: [Section]
    public var blocks: Blocks
}

/// The figures a briefing is composed from.
public struct BriefingInputs: Sendable {
    public var date: LocalDate
    public var recovery: RecoveryScore
    /// Nights ending on the date and the 60 dates before.
    public var nights: [LocalDate: SleepNight]
    /// Day figures from 90 days before the date to the date (a weight from 29 days back has its
    /// own 60 days of baseline).
    public var days: [HealthMetric: [LocalDate: Double]]
    /// How the user said they feel that morning (1…5), if they did.
    public var feeling: Int?

    public init(date: LocalDate, recovery: RecoveryScore, nights: [LocalDate: SleepNight], days: [HealthMetric: [LocalDate: Double]], feeling: Int?) {
        self.date = date
        self.recovery = recovery
        self.nights = nights
        self.days = days
        self.feeling = feeling
    }

    /// The metrics whose newest sample time each section reports as its freshness.
    public static let freshnessMetrics: [Briefing.SectionKey: [HealthMetric]] = [
        .recovery: [.hrvSdnn, .restingHeartRate],
        .activity: [.steps, .activeEnergy, .distance],
        .cardio: [.restingHeartRate, .hrvSdnn, .spo2, .respiratoryRate],
        .body: [.bodyMass, .bodyFat],
    ]
}

public enum BriefingComposer {
    static let minimumBaselineDays = RecoveryFormula.minimumBaselineDays

    public static func compose(_ inputs: BriefingInputs, language: Language) -> Briefing {
        let recovery = inputs.recovery
        let hasRecovery = recovery.components.contains(where: { $0.value != nil })
        // Sleep: the night ending on the date.
        let night = inputs.nights[inputs.date]
        let sleep = night.map { sleepDeltas($0, inputs) }
        let activity = activityDeltas(inputs)
        let sections: [Briefing.Section?] = [
            // Recovery: whenever any component has a figure for the date.
            hasRecovery ? section(.recovery, summary: recoverySummary(recovery, language), status: recovery.status.rawValue,
                                  colorToken: recovery.status.colorToken, deltas: [], methodology: LabelCatalogue.methodologyClass, language) : nil,
            night.flatMap { night in sleep.map { sleepSection(night, deltas: $0, language) } },
            activitySection(activity, language),
            cardioSection(inputs, language),
            bodySection(inputs, language),
        ]
        let blocks = Briefing.Blocks(
            sleep: night.map { sleepBlock($0, delta: sleep?.first, language) },
            yesterday: yesterdayBlock(activity, language),
            recovery: hasRecovery ? recoveryBlock(recovery, language) : nil,
            recommendation: recommendation(recovery, feeling: inputs.feeling, language))
        return Briefing(date: inputs.date, sections: sections.compactMap { $0 }, blocks: blocks)
    }

    static let measured = "device_measured"

    static func section(_ key: Briefing.SectionKey, summary: String, status: String, colorToken: String, deltas: [Briefing.Delta],
                        methodology: String = measured, _ language: Language) -> Briefing.Section {
        Briefing.Section(key: key, title: LabelCatalogue.text("briefing.section.\(key.rawValue)", language), summary: summary,
                         status: status, colorToken: colorToken, deltas: deltas, methodologyClass: methodology,
                         methodologyLabel: LabelCatalogue.text("methodology.\(methodology)", language))
    }

    /// Asleep, deep and REM minutes of the night, against the nights before; asleep first.
    static func sleepDeltas(_ night: SleepNight, _ inputs: BriefingInputs) -> [Briefing.Delta] {
        let history = { (value: (SleepNight) -> Int) in inputs.nights.mapValues { Double(value($0)) } }
        let date = inputs.date
        return [
            delta("asleep_minutes", Double(night.asleepMinutes), unit: "min", on: date, history: history(\.asleepMinutes), preferUp: true),
            delta("deep_minutes", Double(night.deepMinutes), unit: "min", on: date, history: history(\.deepMinutes), preferUp: nil),
            delta("rem_minutes", Double(night.remMinutes), unit: "min", on: date, history: history(\.remMinutes), preferUp: nil),
        ]
    }

    static func sleepSection(_ night: SleepNight, deltas: [Briefing.Delta], _ language: Language) -> Briefing.Section {
        let status: Judgement = night.asleepMinutes >= 420 ? .good : night.asleepMinutes >= 360 ? .fair : .poor
        return section(.sleep, summary: LabelFormat.fill("briefing.sleep.summary", language, [
            "duration": LabelFormat.duration(minutes: Double(night.asleepMinutes), language)]),
            status: status.rawValue, colorToken: status.colorToken, deltas: deltas, language)
    }

    /// Activity: yesterday's whole day, the morning's view of it.
    static func activityDeltas(_ inputs: BriefingInputs) -> [Briefing.Delta] {
        let yesterday = inputs.date.adding(days: -1)
        return [HealthMetric.steps, .activeEnergy, .distance].compactMap { metric in
            guard let value = inputs.days[metric]?[yesterday] else { return nil }
            return delta(metric.rawValue, value, unit: metric.unit, on: yesterday, history: inputs.days[metric] ?? [:], preferUp: true)
        }
    }

    static func activitySection(_ activity: [Briefing.Delta], _ language: Language) -> Briefing.Section? {
        guard let lead = activity.first else { return nil }
        let status: Judgement = lead.baseline.map { baseline in
            baseline <= 0 ? .good : lead.value >= 0.9 * baseline ? .good : lead.value >= 0.6 * baseline ? .fair : .poor
        } ?? .neutral
        let summary = lead.metric == HealthMetric.steps.rawValue
            ? LabelFormat.fill("briefing.activity.summary", language, ["steps": LabelFormat.integer(lead.value, language)])
            : LabelFormat.fill("briefing.activity.summary_other", language, [
                "metric": LabelCatalogue.text("metric.\(lead.metric)", language), "value": LabelFormat.integer(lead.value, language),
                "unit": lead.unit])
        return section(.activity, summary: summary, status: status.rawValue, colorToken: status.colorToken, deltas: activity, language)
    }

    /// Cardio: the date's resting heart rate and HRV (judged by the score's own z), SpO2, breathing.
    static func cardioSection(_ inputs: BriefingInputs, _ language: Language) -> Briefing.Section? {
        let date = inputs.date
        let cardioMetrics: [(HealthMetric, Bool?)] = [(.restingHeartRate, false), (.hrvSdnn, true), (.spo2, nil), (.respiratoryRate, nil)]
        let cardio: [Briefing.Delta] = cardioMetrics.compactMap { metric, preferUp in
            guard let value = inputs.days[metric]?[date] else { return nil }
            return delta(metric.rawValue, value, unit: metric.unit, on: date, history: inputs.days[metric] ?? [:], preferUp: preferUp)
        }
        guard !cardio.isEmpty else { return nil }
        let zs = inputs.recovery.components.compactMap { component -> Double? in
            guard component.available, let z = component.z else { return nil }
            switch component.key {
            case .hrv: return z
            case .restingHeartRate: return -z
            case .sleep: return nil
            }
        }
        let status: Judgement = zs.min().map { $0 >= -1 ? .good : $0 >= -2 ? .fair : .poor } ?? .neutral
        var parts: [String] = []
        if let rhr = inputs.days[.restingHeartRate]?[date] {
            parts.append(LabelFormat.fill("briefing.cardio.resting", language, ["value": LabelFormat.integer(rhr, language)]))
        }
        if let hrv = inputs.days[.hrvSdnn]?[date] {
            parts.append(LabelFormat.fill("briefing.cardio.hrv", language, ["value": LabelFormat.integer(hrv, language)]))
        }
        if parts.isEmpty, let first = cardio.first {
            parts.append(LabelCatalogue.text("metric.\(first.metric)", language) + " " + LabelFormat.tenths(first.value, language) + " " + first.unit)
        }
        return section(.cardio, summary: parts.joined(separator: " · "), status: status.rawValue, colorToken: status.colorToken,
                       deltas: cardio, language)
    }

    /// Body: the latest weight and body fat within 30 days; figures, not judgements.
    static func bodySection(_ inputs: BriefingInputs, _ language: Language) -> Briefing.Section? {
        let body: [Briefing.Delta] = [HealthMetric.bodyMass, .bodyFat].compactMap { metric in
            let values = inputs.days[metric] ?? [:]
            guard let day = (0..<30).map({ inputs.date.adding(days: -$0) }).first(where: { values[$0] != nil }), let value = values[day] else { return nil }
            return delta(metric.rawValue, value, unit: metric.unit, on: day, history: values, preferUp: nil)
        }
        guard !body.isEmpty else { return nil }
        let parts = body.map { delta in
            LabelFormat.fill("briefing.body.\(delta.metric)", language, ["value": LabelFormat.tenths(delta.value, language)])
        }
        return section(.body, summary: parts.joined(separator: " · "), status: Judgement.neutral.rawValue,
                       colorToken: Judgement.neutral.colorToken, deltas: body, language)
    }

    /// A section's verdict; sections other than recovery judge one figure, or none.
    enum Judgement: String {
        case good, fair, poor, neutral

        var colorToken: String {
            switch self {
            case .good: RecoveryScore.Status.good.colorToken
            case .fair: RecoveryScore.Status.fair.colorToken
            case .poor: RecoveryScore.Status.poor.colorToken
            case .neutral: RecoveryScore.Status.unscorable.colorToken
            }
        }
    }

    /// `value` on `day` against the mean of the 60 dates before it (at least 7 with data).
    static func delta(_ metric: String, _ value: Double, unit: String, on day: LocalDate, history: [LocalDate: Double], preferUp: Bool?) -> Briefing.Delta {
        let before = HealthBaseline.values(history, before: day)
        let rounded = { (value: Double) in (value * 10).rounded() / 10 }
        guard before.count >= minimumBaselineDays, let baseline = HealthBaseline.mean(before) else {
            return Briefing.Delta(metric: metric, value: rounded(value), unit: unit, baseline: nil, change: nil, changePercent: nil, direction: nil, good: nil)
        }
        let change = value - baseline
        let percent: Double? = baseline == 0 ? nil : change / baseline * 100
        let direction: Briefing.Direction = if let percent { abs(percent) < 2 ? .flat : change > 0 ? .up : .down } else {
            change == 0 ? .flat : change > 0 ? .up : .down
        }
        let good: Bool? = direction == .flat ? nil : preferUp.map { $0 == (direction == .up) }
        return Briefing.Delta(metric: metric, value: rounded(value), unit: unit, baseline: rounded(baseline), change: rounded(change),
                              changePercent: percent.map(rounded), direction: direction, good: good)
    }

    static func recoverySummary(_ score: RecoveryScore, _ language: Language) -> String {
        switch score.status {
        case .good, .fair, .poor:
            LabelFormat.fill("briefing.recovery.summary", language, [
                "score": LabelFormat.tenths(score.score ?? 0, language), "status": LabelCatalogue.text(LabelCatalogue.status(score.status), language)])
        case .calibrating:
            LabelFormat.fill("briefing.recovery.summary_calibrating", language, ["days": LabelFormat.days(score.daysUntilReady ?? 0, language)])
        case .unscorable:
            LabelCatalogue.text("briefing.recovery.summary_unscorable", language)
        }
    }

    static func sleepBlock(_ night: SleepNight, delta: Briefing.Delta?, _ language: Language) -> String {
        let duration = LabelFormat.duration(minutes: Double(night.asleepMinutes), language)
        guard let change = delta?.change else { return LabelFormat.fill("briefing.block.sleep", language, ["duration": duration]) }
        let key = abs(change) < 10 ? "briefing.block.sleep_usual" : change > 0 ? "briefing.block.sleep_more" : "briefing.block.sleep_less"
        return LabelFormat.fill(key, language, ["duration": duration, "difference": LabelFormat.duration(minutes: abs(change), language)])
    }

    static func yesterdayBlock(_ activity: [Briefing.Delta], _ language: Language) -> String? {
        let steps = activity.first { $0.metric == HealthMetric.steps.rawValue }
        let energy = activity.first { $0.metric == HealthMetric.activeEnergy.rawValue }
        var text: String
        switch (steps, energy) {
        case let (steps?, energy?):
            text = LabelFormat.fill("briefing.block.yesterday", language, [
                "steps": LabelFormat.integer(steps.value, language), "kcal": LabelFormat.integer(energy.value, language)])
        case let (steps?, nil):
            text = LabelFormat.fill("briefing.block.yesterday_steps", language, ["steps": LabelFormat.integer(steps.value, language)])
        case let (nil, energy?):
            text = LabelFormat.fill("briefing.block.yesterday_energy", language, ["kcal": LabelFormat.integer(energy.value, language)])
        case (nil, nil):
            return nil
        }
        if let percent = (steps ?? energy)?.changePercent, abs(percent) >= 5 {
            text += " " + LabelFormat.fill(percent > 0 ? "briefing.block.yesterday_above" : "briefing.block.yesterday_below", language,
                                           ["percent": LabelFormat.integer(abs(percent), language)])
        }
        return text
    }

    static func recoveryBlock(_ score: RecoveryScore, _ language: Language) -> String {
        switch score.status {
        case .good, .fair, .poor:
            LabelFormat.fill("briefing.block.recovery", language, [
                "score": LabelFormat.tenths(score.score ?? 0, language),
                "status": LabelCatalogue.text(LabelCatalogue.status(score.status), language).lowercased()])
        case .calibrating:
            LabelFormat.fill("briefing.block.recovery_calibrating", language, ["days": LabelFormat.days(score.daysUntilReady ?? 0, language)])
        case .unscorable:
            LabelCatalogue.text("briefing.block.recovery_unscorable", language)
        }
    }

    /// From the score's status; a low check-in on a good day says to listen to the body.
    static func recommendation(_ score: RecoveryScore, feeling: Int?, _ language: Language) -> String {
        let key = switch score.status {
        case .good: (feeling ?? 5) <= 2 ? "briefing.recommendation.listen" : "briefing.recommendation.good"
        case .fair: "briefing.recommendation.fair"
        case .poor: "briefing.recommendation.poor"
        case .calibrating, .unscorable: "briefing.recommendation.no_score"
        }
        return LabelCatalogue.text(key, language)
    }
}
