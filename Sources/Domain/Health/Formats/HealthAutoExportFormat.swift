import Foundation

/// Health Auto Export's "REST API" automation (`{"data": {"metrics": [...], "workouts": [...]}}`),
/// read leniently: fields differ between the app's versions and follow the user's units and
/// locale. Metrics and fields lifelog does not keep are counted in `skipped`, never refused.
public enum HealthAutoExportFormat {
    /// The app's metric names and lifelog's.
    public static let metrics: [String: HealthMetric] = [
        "step_count": .steps, "steps": .steps,
        "walking_running_distance": .distance, "distance_walking_running": .distance,
        "active_energy": .activeEnergy, "active_energy_burned": .activeEnergy,
        "heart_rate": .heartRate, "resting_heart_rate": .restingHeartRate,
        "heart_rate_variability": .hrvSdnn, "heart_rate_variability_sdnn": .hrvSdnn,
        "blood_oxygen_saturation": .spo2, "oxygen_saturation": .spo2,
        "respiratory_rate": .respiratoryRate,
        "weight_body_mass": .bodyMass, "body_mass": .bodyMass, "weight": .bodyMass,
        "body_fat_percentage": .bodyFat,
        "vo2max": .vo2Max, "vo2_max": .vo2Max,
    ]
    static let sleepStages: [String: String] = [
        "core": "core", "deep": "deep", "rem": "rem", "awake": "awake", "in bed": "in_bed", "inbed": "in_bed",
        "asleep": "asleep", "unspecified": "asleep", "asleep unspecified": "asleep",
    ]

    public static func decode(_ body: Data) throws(HealthFormatError) -> HealthIntake {
        guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw HealthFormatError("the body must be a JSON object: {\"data\": {\"metrics\": [...], \"workouts\": [...]}}")
        }
        // The app wraps everything in "data"; a body without the wrapper is read the same way.
        // Past the lists themselves everything is lenient; the lists are the format.
        // data null is data left out, as for every other field.
        if root["data"] != nil, !(root["data"] is [String: Any]), !(root["data"] is NSNull) { throw HealthFormatError("data must be an object") }
        let data = root["data"] as? [String: Any] ?? root
        guard data["metrics"] != nil || data["workouts"] != nil else {
            throw HealthFormatError("the body has neither data.metrics nor data.workouts")
        }
        for key in ["metrics", "workouts"] where data[key] != nil && !(data[key] is [Any]) {
            throw HealthFormatError("data.\(key) must be an array")
        }
        var intake = HealthIntake()
        for (m, item) in ((data["metrics"] as? [Any]) ?? []).enumerated() {
            // A metric without a name or a list of points is not one lifelog can read: skipped.
            guard let metric = item as? [String: Any], let name = (metric["name"] as? String)?.lowercased(),
                  let points = metric["data"] as? [Any], metric["units"] == nil || metric["units"] is String else {
                intake.skipped += max(((item as? [String: Any])?["data"] as? [Any])?.count ?? 1, 1)
                continue
            }
            let units = metric["units"] as? String
            if name == "sleep_analysis" {
                let seconds = sleepUnitSeconds(units)
                for (p, point) in points.enumerated() {
                    sleep(point, unitSeconds: seconds, path: "data.metrics[\(m)].data[\(p)]", index: p, into: &intake)
                }
            } else if let known = metrics[name] {
                for (p, point) in points.enumerated() {
                    quantity(point, metric: known, units: units, path: "data.metrics[\(m)].data[\(p)]", index: p, into: &intake)
                }
            } else {
                intake.skipped += max(points.count, 1)
            }
        }
        for (w, item) in ((data["workouts"] as? [Any]) ?? []).enumerated() {
            workout(item, path: "data.workouts[\(w)]", index: w, into: &intake)
        }
        return intake
    }

    public static func quantity(_ item: Any, metric: HealthMetric, units: String?, path: String, index: Int, into intake: inout HealthIntake) {
        guard let point = item as? [String: Any] else { intake.skipped += 1; return }
        // Heart rate comes as Min, Avg and Max: the mean is Avg, and the day's extremes are Min and Max.
        guard let value = number(point["qty"]) ?? number(point["Avg"]) ?? number(point["avg"]) else {
            intake.reject(HealthItemError(index: index, field: "\(path).qty", message: "has no value (qty, or Avg for heart rate)"))
            return
        }
        let low = number(point["Min"]) ?? number(point["min"]), high = number(point["Max"]) ?? number(point["max"])
        let source = source(point["source"])
        if let startText = point["start"] as? String, let endText = point["end"] as? String {
            guard let start = HealthAutoExportDate.instant(startText), let end = HealthAutoExportDate.instant(endText) else {
                intake.reject(HealthItemError(index: index, field: "\(path).start", message: "is not a date as yyyy-MM-dd HH:mm:ss Z"))
                return
            }
            intake.samples.append(.init(metric: metric.rawValue, value: value, unit: unit(units, metric), start: start, end: end,
                                        source: source, series: .sample, path: path, min: low, max: high))
            return
        }
        guard let dateText = point["date"] as? String, let date = HealthAutoExportDate.instant(dateText) else {
            intake.reject(HealthItemError(index: index, field: "\(path).date", message: "is not a date as yyyy-MM-dd HH:mm:ss Z"))
            return
        }
        // A point with only a date is a total for its period when the metric adds up (the day's
        // steps so far): it replaces the earlier total for that period and source, never adds to it.
        // It counts for the date the app wrote: its offset says which local day it meant, whatever
        // the account's zone (a phone in New York totals New York's day).
        let total = metric.dailyRule == .cumulative
        intake.samples.append(.init(metric: metric.rawValue, value: value, unit: unit(units, metric), start: date, end: date,
                                    source: source, series: total ? .summary : .sample, path: path,
                                    localDate: total ? HealthAutoExportDate.date(dateText) : nil, min: low, max: high))
    }

    /// Seconds in one unit of a sleep summary's figures: hours unless `units` says minutes or seconds.
    public static func sleepUnitSeconds(_ units: String?) -> Double {
        switch units?.lowercased().trimmingCharacters(in: .whitespaces) {
        case "min", "mins", "minute", "minutes": 60
        case "s", "sec", "secs", "second", "seconds": 1
        default: 3_600
        }
    }

    static func sleep(_ item: Any, unitSeconds: Double = 3_600, path: String, index: Int, into intake: inout HealthIntake) {
        guard let point = item as? [String: Any] else { intake.skipped += 1; return }
        // The aggregated form names its sources in sleepSource (and inBedSource); a segment in source.
        let source = source(point["source"] ?? point["sleepSource"] ?? point["inBedSource"])
        // One segment: startDate/endDate (or start/end) and a stage name.
        if let stageText = point["value"] as? String {
            guard let stage = sleepStages[stageText.lowercased()] else { intake.skipped += 1; return }
            guard let start = (point["startDate"] as? String ?? point["start"] as? String).flatMap(HealthAutoExportDate.instant),
                  let end = (point["endDate"] as? String ?? point["end"] as? String).flatMap(HealthAutoExportDate.instant) else {
                intake.reject(HealthItemError(index: index, field: "\(path).startDate", message: "is not a date as yyyy-MM-dd HH:mm:ss Z"))
                return
            }
            intake.sleep.append(.init(stage: stage, start: start, end: end, source: source, path: path))
            return
        }
        // A night's summary (hours unless the metric's units say otherwise), in any of the app's
        // three generations. It is placed from sleepStart (or inBedStart); with only sleepEnd, so
        // that it ends there: sleepEnd is the end of the night, and says which night it is.
        let instant = { (key: String) in (point[key] as? String).flatMap(HealthAutoExportDate.instant) }
        guard let figures = durations(point, ["deep", "core", "rem", "awake", "asleep", "inBed", "totalSleep"], unit: unitSeconds, path: path, into: &intake) else {
            return
        }
        let amount = { (key: String) in figures[key] ?? 0 }
        let deep = amount("deep"), core = amount("core"), rem = amount("rem"), awake = amount("awake")
        // totalSleep (newest) is all sleep; before it, "asleep" is the sleep no stage names.
        let asleep = number(point["totalSleep"]) != nil ? amount("totalSleep") : (deep + core + rem + amount("asleep"))
        let staged = max(asleep, deep + core + rem) + awake
        let sleepEnd = instant("sleepEnd")
        guard let sleepStart = instant("sleepStart") ?? instant("inBedStart") ?? sleepEnd.map({ $0.addingTimeInterval(-staged) }) else {
            intake.reject(HealthItemError(index: index, field: "\(path).sleepStart", message: "is needed to place the night (or sleepEnd)"))
            return
        }
        var layout = SleepNightLayout(sleepStart: sleepStart)
        (layout.deep, layout.core, layout.rem, layout.awake, layout.asleep) = (deep, core, rem, awake, asleep)
        if let start = instant("inBedStart"), let end = instant("inBedEnd") ?? sleepEnd, end > start {
            layout.inBed = (start, end)
        } else if amount("inBed") > 0 {
            layout.inBed = (sleepStart, sleepStart.addingTimeInterval(amount("inBed")))
        }
        intake.sleep += layout.segments(source: source, path: path)
    }

    public static func workout(_ item: Any, path: String, index: Int, into intake: inout HealthIntake) {
        guard let workout = item as? [String: Any] else { intake.skipped += 1; return }
        guard let start = (workout["start"] as? String).flatMap(HealthAutoExportDate.instant),
              let end = (workout["end"] as? String).flatMap(HealthAutoExportDate.instant) else {
            intake.reject(HealthItemError(index: index, field: "\(path).start", message: "is not a date as yyyy-MM-dd HH:mm:ss Z"))
            return
        }
        let energy = quantity(workout["activeEnergyBurned"] ?? workout["activeEnergy"]).flatMap { value, units in
            HealthMetric.activeEnergy.normalized(value, unit: units)
        }
        let distance = quantity(workout["distance"]).flatMap { value, units in HealthMetric.distance.normalized(value, unit: units) }
        var heartRate = quantity(workout["avgHeartRate"])?.0
        if let rates = workout["heartRate"] as? [String: Any] {
            heartRate = heartRate ?? number(rates["avg"]) ?? quantity(rates["avg"])?.0
        }
        // Without a summary, the mean of the workout's own heart-rate readings (Avg, or qty, per point).
        if heartRate == nil, let points = workout["heartRateData"] as? [Any] {
            let readings = points.compactMap { point -> Double? in
                guard let point = point as? [String: Any] else { return nil }
                return number(point["Avg"]) ?? number(point["avg"]) ?? number(point["qty"])
            }
            if !readings.isEmpty { heartRate = readings.reduce(0, +) / Double(readings.count) }
        }
        let name = (workout["name"] as? String) ?? "workout"
        intake.workouts.append(.init(uuid: workout["id"] as? String, type: name, start: start, end: end, activeEnergyKcal: energy,
                                     distanceM: distance, avgHeartRate: heartRate, source: source(workout["source"]), path: path))
    }

    /// `{qty, units}` (or a bare number).
    static func quantity(_ value: Any?) -> (Double, String?)? {
        if let number = number(value) { return (number, nil) }
        guard let object = value as? [String: Any], let qty = number(object["qty"]) else { return nil }
        return (qty, object["units"] as? String)
    }

    /// A field that may be left out, read as `number` reads it.
    enum Figure {
        case absent
        case value(Double)
        /// There, but no number: the item's error, never read as 0 (a night sent with
        /// `"deep": "lots"` is not a night without deep sleep).
        case notANumber
    }

    static func figure(_ raw: Any?) -> Figure {
        guard let raw, !(raw is NSNull) else { return .absent }
        return number(raw).map(Figure.value) ?? .notANumber
    }

    /// Durations of a summarised night (`keys` in `unit` seconds each), 0 for those left out;
    /// nil, with the item rejected, when one is there but no number.
    static func durations(_ item: [String: Any], _ keys: [String], unit: Double, path: String?, into intake: inout HealthIntake) -> [String: Double]? {
        var found: [String: Double] = [:], wrong: [HealthItemError] = []
        for key in keys {
            switch figure(item[key]) {
            case .absent: found[key] = 0
            case .value(let value): found[key] = value * unit
            case .notANumber:
                let message = "must be a number of \(unit == 3_600 ? "hours" : unit == 60 ? "minutes" : "seconds")"
                wrong.append(path.map { HealthItemError(item: $0, field: key, message: message) } ?? HealthItemError(index: 0, field: key, message: message))
            }
        }
        guard wrong.isEmpty else { intake.reject(wrong); return nil }
        return found
    }

    /// A number, also when the app wrote it as a string ("5234", "72,5" in some locales).
    public static func number(_ value: Any?) -> Double? {
        if let text = value as? String { return Double(text.replacingOccurrences(of: ",", with: ".")) }
        return NativeHealthFormat.ItemReader.double(value)
    }

    /// The first of several devices joined by `|` ("iPhone|Apple Watch").
    public static func source(_ value: Any?) -> HealthSource {
        let names = (value as? String)?.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        return .named(names.first.map { String($0.prefix(200)) } ?? "Health Auto Export")
    }

    /// The app's unit spellings that lifelog's names differ from.
    static func unit(_ units: String?, _ metric: HealthMetric) -> String? {
        guard let units else { return nil }
        switch units.lowercased() {
        case "hr", "hours": return nil
        case "count/min", "bpm", "breaths/min": return "count/min"
        case "ml/(kg·min)", "ml/(kg*min)", "ml/kg/min", "ml/(kg.min)", "ml/min·kg": return metric == .vo2Max ? nil : units
        default: return units
        }
    }
}
