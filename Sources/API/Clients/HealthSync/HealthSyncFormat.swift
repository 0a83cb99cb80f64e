import Domain
import Foundation

/// health-sync's uploads (Dzarlax-AI/health-sync; CONTRACTS §1.3–1.4), read into the native
/// intake. The body is Health Auto Export's envelope with health-sync's own meanings:
/// - dates are the phone's local time with its offset (`2026-09-10 09:47:00 +0200`);
/// - an adding metric (steps, energy, distance) comes as hourly buckets of HealthKit's own sum
///   across the phone's sources, each labelled with the "best" source of that hour. They are the
///   app's totals for their hours: one sender's (`health-sync`), whatever the label, so the
///   hours add up to HealthKit's day; a re-sent hour replaces itself; samples of the day (an
///   Apple export, a native batch) outrank them, as any client's totals;
/// - heart rate's reading is `Avg`; other readings `qty`, each with its HealthKit source;
/// - sleep comes three ways at once: a night's totals by wake day (`sleep_analysis`,
///   `night_sleep_total`, `nap_total`, 0 when there was no nap) and the segments themselves
///   (`sleep_deep`, `sleep_rem`, `sleep_core`, `sleep_unspecified`, `sleep_awake`: a start and
///   hours). lifelog keeps the segments, from which it builds its own nights (the 18:00 rule,
///   source priority); the totals say nothing the segments do not and are counted as skipped;
/// - the coverage attestations (`night_sleep_coverage`, `sleep_period_coverage`,
///   `completed_sleep_episodes`) are not items and are not stored.
/// Metrics lifelog does not keep (walking speed, basal energy, mindful minutes, …) are skipped.
enum HealthSyncFormat {
    /// Who sent the hourly totals: HealthKit's merged sum on the phone, through this app.
    static let sender = HealthSource(name: "health-sync", kind: .phone)
    static let sleepStages: [String: String] = [
        "sleep_deep": "deep", "sleep_rem": "rem", "sleep_core": "core", "sleep_unspecified": "asleep", "sleep_awake": "awake",
    ]
    static let nightTotals: Set<String> = ["sleep_analysis", "night_sleep_total", "nap_total"]

    static func decodeMetrics(_ body: Any) throws(HealthFormatError) -> HealthIntake {
        guard let root = body as? [String: Any] else { throw HealthFormatError("the body must be a JSON object: {\"data\": {\"metrics\": [...]}}") }
        let data = root["data"] as? [String: Any] ?? root
        // The app always sends the list, empty when the hour has nothing new.
        guard let metrics = data["metrics"] as? [Any] else { throw HealthFormatError("data.metrics must be an array") }
        var intake = HealthIntake()
        for (m, item) in metrics.enumerated() {
            guard let metric = item as? [String: Any], let name = (metric["name"] as? String)?.lowercased() else {
                intake.skipped += 1
                continue
            }
            let points = (metric["data"] as? [Any]) ?? []
            let units = metric["units"] as? String
            if let stage = sleepStages[name] {
                let seconds = HealthAutoExportFormat.sleepUnitSeconds(units)
                for (p, point) in points.enumerated() {
                    segment(point, stage: stage, unitSeconds: seconds, path: "data.metrics[\(m)].data[\(p)]", index: p, into: &intake)
                }
            } else if nightTotals.contains(name) {
                intake.skipped += points.count
            } else if let known = HealthAutoExportFormat.metrics[name] {
                let before = intake.samples.count
                for (p, point) in points.enumerated() {
                    HealthAutoExportFormat.quantity(point, metric: known, units: units, path: "data.metrics[\(m)].data[\(p)]", index: p, into: &intake)
                }
                for index in before..<intake.samples.count where intake.samples[index].series == .summary {
                    intake.samples[index].source = sender
                }
            } else {
                intake.skipped += max(points.count, 1)
            }
        }
        return intake
    }

    /// `{"date": "<segment start>", "qty": <hours>, "source"}`: a segment of one stage.
    static func segment(_ item: Any, stage: String, unitSeconds: Double, path: String, index: Int, into intake: inout HealthIntake) {
        guard let point = item as? [String: Any] else { intake.skipped += 1; return }
        guard let text = point["date"] as? String, let start = HealthAutoExportDate.instant(text) else {
            intake.reject(HealthItemError(index: index, field: "\(path).date", message: "is not a date as yyyy-MM-dd HH:mm:ss Z"))
            return
        }
        guard let amount = HealthAutoExportFormat.number(point["qty"]), amount.isFinite, amount >= 0 else {
            intake.reject(HealthItemError(index: index, field: "\(path).qty", message: "must be the segment's length"))
            return
        }
        let end = start.addingTimeInterval((amount * unitSeconds).rounded())
        intake.sleep.append(.init(stage: stage, start: start, end: end, source: HealthAutoExportFormat.source(point["source"]), path: path))
    }

    /// `{"data": {"workouts": [...]}}`, `{"workouts": [...]}` or a bare array; answers the intake
    /// and how many workouts were sent.
    static func decodeWorkouts(_ body: Any) throws(HealthFormatError) -> (intake: HealthIntake, sent: Int) {
        let list: [Any]
        if let array = body as? [Any] {
            list = array
        } else if let root = body as? [String: Any], let workouts = ((root["data"] as? [String: Any]) ?? root)["workouts"] as? [Any] {
            list = workouts
        } else {
            throw HealthFormatError("the body must be {\"data\": {\"workouts\": [...]}}")
        }
        var intake = HealthIntake()
        for (w, item) in list.enumerated() {
            let before = intake.workouts.count
            HealthAutoExportFormat.workout(item, path: "data.workouts[\(w)]", index: w, into: &intake)
            // The app's workouts name no source: they are HealthKit's, sent by this app.
            if intake.workouts.count > before, (item as? [String: Any])?["source"] == nil { intake.workouts[before].source = sender }
        }
        return (intake, list.count)
    }
}
