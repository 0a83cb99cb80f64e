import Foundation

/// The CoachFit sync client's daily summaries (`/ingest/steps`, `/sleep`, `/workouts`,
/// `/profile`), so the client works by changing only its base URL. A day's step total is a
/// client total for that local day (`series: summary`): samples of the same day outrank it.
public enum CoachFitFormat {
    public static func decodeSteps(_ body: Data, timeZone: TimeZone) throws(HealthFormatError) -> HealthIntake {
        var intake = HealthIntake()
        let dating = LocalDating(timeZone: timeZone)
        for (index, item) in try list(body, "steps").enumerated() {
            let path = "steps[\(index)]"
            guard let day = item["date"] as? String, let date = HealthAutoExportDate.date(day) else {
                intake.reject(HealthItemError(index: index, field: "\(path).date", message: "must be a date as YYYY-MM-DD"))
                continue
            }
            guard let total = HealthAutoExportFormat.number(item["total_steps"]) else {
                intake.reject(HealthItemError(index: index, field: "\(path).total_steps", message: "is required (a number)"))
                continue
            }
            let midnight = Date(timeIntervalSince1970: TimeInterval(dating.startOfDay(date)))
            intake.samples.append(.init(metric: HealthMetric.steps.rawValue, value: total, unit: "count", start: midnight, end: midnight,
                                        source: source(item["source_devices"]), series: .summary, path: path))
        }
        return intake
    }

    public static func decodeSleep(_ body: Data) throws(HealthFormatError) -> HealthIntake {
        var intake = HealthIntake()
        for (index, item) in try list(body, "sleep_records").enumerated() {
            let path = "sleep_records[\(index)]"
            guard let start = (item["sleep_start"] as? String).flatMap(instant) else {
                intake.reject(HealthItemError(index: index, field: "\(path).sleep_start", message: "must be an RFC 3339 instant"))
                continue
            }
            let keys = ["asleep_deep_minutes", "asleep_core_minutes", "asleep_rem_minutes", "awake_minutes", "total_sleep_minutes", "in_bed_minutes"]
            guard let durations = HealthAutoExportFormat.durations(item, keys, unit: 60, path: path, into: &intake) else { continue }
            let minutes = { (key: String) in durations[key] ?? 0 }
            var layout = SleepNightLayout(sleepStart: start)
            layout.deep = minutes("asleep_deep_minutes")
            layout.core = minutes("asleep_core_minutes")
            layout.rem = minutes("asleep_rem_minutes")
            layout.awake = minutes("awake_minutes")
            layout.asleep = max(minutes("total_sleep_minutes"), layout.deep + layout.core + layout.rem)
            if let end = (item["sleep_end"] as? String).flatMap(instant), minutes("in_bed_minutes") > 0 {
                layout.inBed = (start, max(end, start.addingTimeInterval(minutes("in_bed_minutes"))))
            }
            intake.sleep += layout.segments(source: source(item["source_devices"]), path: path)
        }
        return intake
    }

    public static func decodeWorkouts(_ body: Data) throws(HealthFormatError) -> HealthIntake {
        var intake = HealthIntake()
        for (index, item) in try list(body, "workouts").enumerated() {
            let path = "workouts[\(index)]"
            guard let start = (item["start_time"] as? String).flatMap(instant) else {
                intake.reject(HealthItemError(index: index, field: "\(path).start_time", message: "must be an RFC 3339 instant"))
                continue
            }
            // A figure that is there but no number is the workout's error, not a workout without it.
            var figures: [String: Double] = [:], wrong: [HealthItemError] = []
            for key in ["duration_seconds", "calories_active", "distance_meters", "avg_heart_rate"] {
                switch HealthAutoExportFormat.figure(item[key]) {
                case .absent: break
                case .value(let value): figures[key] = value
                case .notANumber: wrong.append(HealthItemError(item: path, field: key, message: "must be a number"))
                }
            }
            guard wrong.isEmpty else { intake.reject(wrong); continue }
            let end = (item["end_time"] as? String).flatMap(instant) ?? figures["duration_seconds"].map { start.addingTimeInterval($0) } ?? start
            intake.workouts.append(.init(
                type: (item["workout_type"] as? String) ?? "workout", start: start, end: end,
                activeEnergyKcal: figures["calories_active"], distanceM: figures["distance_meters"],
                avgHeartRate: figures["avg_heart_rate"], source: source(item["source_device"]), path: path))
        }
        return intake
    }

    /// Body measurements: weight and body fat are kept; height is not a lifelog metric (skipped).
    public static func decodeProfile(_ body: Data) throws(HealthFormatError) -> HealthIntake {
        var intake = HealthIntake()
        let names: [String: HealthMetric] = ["weight": .bodyMass, "body_mass": .bodyMass, "body_fat": .bodyFat]
        for (index, item) in try list(body, "metrics").enumerated() {
            let path = "metrics[\(index)]"
            guard let name = item["metric"] as? String, let metric = names[name.lowercased()] else {
                intake.skipped += 1
                continue
            }
            guard let value = HealthAutoExportFormat.number(item["value"]), let at = (item["measured_at"] as? String).flatMap(instant) else {
                intake.reject(HealthItemError(index: index, field: "\(path).measured_at", message: "needs a value and an RFC 3339 measured_at"))
                continue
            }
            intake.samples.append(.init(metric: metric.rawValue, value: value, unit: item["unit"] as? String, start: at, end: at,
                                        source: HealthSource(name: "CoachFit", kind: .app), path: path))
        }
        return intake
    }

    static func list(_ body: Data, _ key: String) throws(HealthFormatError) -> [[String: Any]] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let items = object[key] as? [Any] else {
            throw HealthFormatError("the body must be a JSON object with a \(key) array")
        }
        return items.map { $0 as? [String: Any] ?? [:] }
    }

    /// RFC 3339, or Health Auto Export's form, which some clients reuse.
    public static func instant(_ text: String) -> Date? { RFC3339.parse(text) ?? HealthAutoExportDate.instant(text) }

    static func source(_ value: Any?) -> HealthSource {
        let name = (value as? [Any])?.first as? String ?? value as? String ?? "CoachFit"
        return .named(String(name.prefix(200)))
    }
}
