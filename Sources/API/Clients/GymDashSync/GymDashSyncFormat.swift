import Domain
import Foundation

/// GymDashSync's uploads (adamswbrown/GymDashSync, written for the CoachFit server; CONTRACTS
/// §2.3), read into the native intake:
/// - steps: the last 365 days in one request, each `date` a full UTC instant: the start of a
///   24-hour window that begins at the time of day of the sync. The day meant is that instant's
///   local date in the user's zone (not its first ten characters, which are UTC's). Every sync
///   sends a fresh random `healthkit_uuid`, so a day is identified by the sender and the local
///   day: a day's total is this app's total for that date, replacing the one sent before;
/// - sleep: one row per local date a sample started on, so a night across midnight comes as two
///   rows; rows whose times overlap or follow within an hour (and span 18 hours at most together)
///   are joined into one night. Its minutes are the app's sum over every sleep-analysis sample
///   (in bed and awake included): the asleep time kept is at most the span from the first start
///   to the last end, laid from the first start. A row that holds the morning of one night and
///   the evening of the next (most rows, since the app cuts at midnight) counts for its own date:
///   right for a steady routine, not to the minute; a watch's own segments (health-sync,
///   HealthPush, an Apple export) outrank these, which rank as an app's;
/// - workouts: identified by the HealthKit uuid in `metadata` (the same workout from health-sync
///   is the same item); `max_heart_rate` is a copy of the average and is not read;
/// - profile: weight (kg) and body fat (a 0–1 fraction labelled `percent`); height is not a
///   lifelog metric and is counted as skipped.
enum GymDashSyncFormat {
    /// Its step and sleep totals: HealthKit's sums over windows the sync time shifts, so they rank
    /// below every device (and only count for a day no device sent samples of).
    static let sender = HealthSource(name: "GymDashSync", kind: .app)

    static func list(_ body: Any, _ key: String) throws(HealthFormatError) -> [Any] {
        guard let object = body as? [String: Any], let items = object[key] as? [Any] else {
            throw HealthFormatError("the body must be a JSON object with a \(key) array")
        }
        return items
    }

    static func decodeSteps(_ body: Any, timeZone: TimeZone) throws(HealthFormatError) -> HealthIntake {
        var intake = HealthIntake()
        let dating = LocalDating(timeZone: timeZone)
        for (index, item) in try list(body, "steps").enumerated() {
            let path = "steps[\(index)]"
            guard let row = item as? [String: Any] else { intake.skipped += 1; continue }
            guard uuidIsText(row) else { intake.reject(uuidError(index, path)); continue }
            let text = row["date"] as? String
            // A full instant names the local day it falls on; a bare date names itself.
            guard let day = text.flatMap({ text in
                text.count > 10 ? CoachFitFormat.instant(text).map { dating.date(Int64($0.timeIntervalSince1970.rounded(.down))) } : LocalDate(text)
            }) else {
                intake.reject(HealthItemError(index: index, field: "\(path).date", message: "must be an RFC 3339 instant (or a date)"))
                continue
            }
            guard let total = HealthAutoExportFormat.number(row["total_steps"]) else {
                intake.reject(HealthItemError(index: index, field: "\(path).total_steps", message: "is required (a number)"))
                continue
            }
            let midnight = Date(timeIntervalSince1970: TimeInterval(dating.startOfDay(day)))
            intake.samples.append(.init(metric: HealthMetric.steps.rawValue, value: total, unit: "count", start: midnight, end: midnight,
                                        source: sender, series: .summary, path: path, localDate: day))
        }
        return intake
    }

    static func decodeSleep(_ body: Any) throws(HealthFormatError) -> HealthIntake {
        var intake = HealthIntake()
        struct Row { var start: Date; var end: Date; var minutes: Double; var path: String }
        var rows: [Row] = []
        for (index, item) in try list(body, "sleep_records").enumerated() {
            let path = "sleep_records[\(index)]"
            guard let row = item as? [String: Any] else { intake.skipped += 1; continue }
            guard uuidIsText(row) else { intake.reject(uuidError(index, path)); continue }
            guard let start = (row["sleep_start"] as? String).flatMap(CoachFitFormat.instant),
                  let end = (row["sleep_end"] as? String).flatMap(CoachFitFormat.instant), end >= start else {
                intake.reject(HealthItemError(index: index, field: "\(path).sleep_start", message: "needs RFC 3339 sleep_start and sleep_end, in order"))
                continue
            }
            guard let minutes = HealthAutoExportFormat.number(row["total_sleep_minutes"]), minutes.isFinite, minutes >= 0 else {
                intake.reject(HealthItemError(index: index, field: "\(path).total_sleep_minutes", message: "is required (a number)"))
                continue
            }
            rows.append(Row(start: start, end: end, minutes: minutes, path: path))
        }
        // One night is the rows that overlap or follow each other within an hour, as long as
        // together they span at most 18 hours (the app's rows touch end to start all year long:
        // joined without a bound, a year would be one night).
        var nights: [Row] = []
        for row in rows.sorted(by: { $0.start < $1.start }) {
            if var last = nights.last, row.start <= last.end.addingTimeInterval(3_600),
               max(last.end, row.end).timeIntervalSince(last.start) <= 18 * 3_600 {
                last.end = max(last.end, row.end)
                last.minutes += row.minutes
                nights[nights.count - 1] = last
            } else {
                nights.append(row)
            }
        }
        for night in nights where night.minutes >= 1 {
            var layout = SleepNightLayout(sleepStart: night.start)
            layout.asleep = min(night.minutes * 60, night.end.timeIntervalSince(night.start))
            intake.sleep += layout.segments(source: sender, path: night.path)
        }
        return intake
    }

    /// A workout as POSTed (`metadata.healthkit_uuid`) or as PUT (`healthkit_uuid`).
    static func workout(_ item: Any, path: String, index: Int, into intake: inout HealthIntake) {
        guard let row = item as? [String: Any] else { intake.skipped += 1; return }
        guard uuidIsText(row) else { intake.reject(uuidError(index, path)); return }
        guard let start = (row["start_time"] as? String).flatMap(CoachFitFormat.instant) else {
            intake.reject(HealthItemError(index: index, field: "\(path).start_time", message: "must be an RFC 3339 instant"))
            return
        }
        let end = (row["end_time"] as? String).flatMap(CoachFitFormat.instant)
            ?? HealthAutoExportFormat.number(row["duration_seconds"]).map { start.addingTimeInterval($0) } ?? start
        let uuid = ((row["metadata"] as? [String: Any])?["healthkit_uuid"] as? String) ?? (row["healthkit_uuid"] as? String)
        intake.workouts.append(.init(
            uuid: uuid, type: (row["workout_type"] as? String) ?? "other", start: start, end: end,
            activeEnergyKcal: HealthAutoExportFormat.number(row["calories_active"]), distanceM: HealthAutoExportFormat.number(row["distance_meters"]),
            avgHeartRate: HealthAutoExportFormat.number(row["avg_heart_rate"]), source: device(row["source_device"]), path: path))
    }

    /// `apple_watch`, `iphone`, or the device's own name.
    static func device(_ value: Any?) -> HealthSource {
        switch value as? String {
        case "apple_watch": HealthSource(name: "Apple Watch", kind: .watch)
        case "iphone": HealthSource(name: "iPhone", kind: .phone)
        case let name? where !name.isEmpty: .named(String(name.prefix(200)))
        default: sender
        }
    }

    static func decodeWorkouts(_ items: [Any]) -> HealthIntake {
        var intake = HealthIntake()
        for (index, item) in items.enumerated() { workout(item, path: "workouts[\(index)]", index: index, into: &intake) }
        return intake
    }

    static let profileMetrics: [String: HealthMetric] = ["weight": .bodyMass, "body_mass": .bodyMass, "body_fat": .bodyFat, "body_fat_percentage": .bodyFat]

    static func decodeProfile(_ items: [Any]) -> HealthIntake {
        var intake = HealthIntake()
        for (index, item) in items.enumerated() {
            let path = "metrics[\(index)]"
            guard let row = item as? [String: Any], let name = row["metric"] as? String, let metric = profileMetrics[name.lowercased()] else {
                intake.skipped += 1
                continue
            }
            guard uuidIsText(row) else { intake.reject(uuidError(index, path)); continue }
            guard let value = HealthAutoExportFormat.number(row["value"]), let at = (row["measured_at"] as? String).flatMap(CoachFitFormat.instant) else {
                intake.reject(HealthItemError(index: index, field: "\(path).measured_at", message: "needs a value and an RFC 3339 measured_at"))
                continue
            }
            // "percent" with a value of at most 1 is a fraction: the rules read it as one.
            intake.samples.append(.init(uuid: row["healthkit_uuid"] as? String, metric: metric.rawValue, value: value, unit: row["unit"] as? String,
                                        start: at, end: at, source: sender, path: path))
        }
        return intake
    }

    /// The HealthKit id, at the top or in a workout's metadata, is text when it is there: anything
    /// else is not what the app sends, and the item is refused rather than stored without its id.
    static func uuidIsText(_ row: [String: Any]) -> Bool {
        let ids = [row["healthkit_uuid"], (row["metadata"] as? [String: Any])?["healthkit_uuid"]].compactMap { $0 }
        return ids.allSatisfy { $0 is String }
    }

    static func uuidError(_ index: Int, _ path: String) -> HealthItemError {
        HealthItemError(index: index, field: "\(path).healthkit_uuid", message: "must be a string")
    }
}
