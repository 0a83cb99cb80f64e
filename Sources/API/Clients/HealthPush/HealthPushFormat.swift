import Domain
import Foundation

/// HealthPush's Home Assistant webhook (danburtenshaw/HealthPush; CONTRACTS §3.2), read into the
/// native intake. Each sync posts one object per metric:
/// `{"id", "type", "value", "unit", "start_date", "end_date"}` (UTC, fractional seconds):
/// - an adding metric (steps, active energy, walking and running distance) is today's running
///   total from local midnight, under an `id` that repeats all day: the day's total from this
///   device, each post replacing the one before, never added to it;
/// - another metric is the newest sample, under HealthKit's own id;
/// - sleep is the hours of merged asleep time of the night, from its first start to its last end.
/// Display units (km, %, hours) become lifelog's units by the shared rules. Types lifelog does
/// not keep (resting energy, exercise and stand minutes, flights, height, BMI, …) are skipped.
enum HealthPushFormat {
    /// The app names no source: its figures are HealthKit's, on the phone.
    static let sender = HealthSource(name: "HealthPush", kind: .phone)
    static let types: [String: HealthMetric] = [
        "steps": .steps, "active_energy": .activeEnergy, "walking_running_distance": .distance,
        "heart_rate": .heartRate, "resting_heart_rate": .restingHeartRate, "hrv": .hrvSdnn, "blood_oxygen": .spo2,
        "respiratory_rate": .respiratoryRate, "weight": .bodyMass, "body_fat": .bodyFat,
    ]

    static func decode(_ body: Any, timeZone: TimeZone) throws(HealthFormatError) -> HealthIntake {
        guard let object = body as? [String: Any], let metrics = object["metrics"] as? [Any] else {
            throw HealthFormatError("the body must be {\"device_name\", \"timestamp\", \"metrics\": [...]}")
        }
        // Not read (each point has its dates), but a timestamp that is not one means a sender we do not know.
        if let timestamp = object["timestamp"], (timestamp as? String).flatMap(RFC3339.parse) == nil {
            throw HealthFormatError("timestamp must be an RFC 3339 instant")
        }
        if let name = object["device_name"], !(name is String) { throw HealthFormatError("device_name must be a string") }
        var intake = HealthIntake()
        let dating = LocalDating(timeZone: timeZone)
        for (index, item) in metrics.enumerated() {
            let path = "metrics[\(index)]"
            guard let point = item as? [String: Any], let type = point["type"] as? String else { intake.skipped += 1; continue }
            guard type == "sleep" || types[type] != nil else { intake.skipped += 1; continue }
            guard let value = HealthAutoExportFormat.number(point["value"]), value.isFinite else {
                intake.reject(HealthItemError(index: index, field: "\(path).value", message: "must be a number"))
                continue
            }
            guard let start = (point["start_date"] as? String).flatMap(RFC3339.parse),
                  let end = (point["end_date"] as? String).flatMap(RFC3339.parse) else {
                intake.reject(HealthItemError(index: index, field: "\(path).start_date", message: "needs RFC 3339 start_date and end_date"))
                continue
            }
            let id = point["id"] as? String
            let unit = point["unit"] as? String
            if type == "sleep" {
                var layout = SleepNightLayout(sleepStart: start)
                layout.asleep = min(value * HealthAutoExportFormat.sleepUnitSeconds(unit), max(0, end.timeIntervalSince(start)))
                var segments = layout.segments(source: sender, path: path)
                if !segments.isEmpty { segments[0].uuid = id }
                intake.sleep += segments
                continue
            }
            guard let metric = types[type] else { continue }
            if metric.dailyRule == .cumulative {
                // Midnight to midnight: the day is the one around the window's middle, in the user's zone.
                let middle = Int64(((start.timeIntervalSince1970 + end.timeIntervalSince1970) / 2).rounded(.down))
                intake.samples.append(.init(uuid: id, metric: metric.rawValue, value: value, unit: unit, start: start, end: end,
                                            source: sender, series: .summary, path: path, localDate: dating.date(middle)))
            } else {
                intake.samples.append(.init(uuid: id, metric: metric.rawValue, value: value, unit: unit, start: start, end: end,
                                            source: sender, series: .sample, path: path))
            }
        }
        return intake
    }
}
