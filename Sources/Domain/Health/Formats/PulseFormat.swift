import Foundation

/// The Pulse webhook's nightly sleep summary (`{"totalSleep": 7.5, "deep": 1.2, "rem": 2.0,
/// "core": 4.3, "awake": 0.5, "inBedStart", "sleepEnd", "source"}`, hours), laid out as the
/// night's segments (`SleepNightLayout`).
public enum PulseFormat {
    public static func decode(_ body: Data) throws(HealthFormatError) -> HealthIntake {
        guard let night = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw HealthFormatError("the body must be a JSON object: a night's summary")
        }
        var intake = HealthIntake()
        let instant = { (key: String) in (night[key] as? String).flatMap(CoachFitFormat.instant) }
        guard let start = instant("inBedStart") ?? instant("sleepStart") else {
            intake.reject(HealthItemError(index: 0, field: "inBedStart", message: "must be an instant (RFC 3339) to place the night"))
            return intake
        }
        guard let hours = HealthAutoExportFormat.durations(night, ["totalSleep", "deep", "rem", "core", "awake"], unit: 3_600, path: nil,
                                                           into: &intake) else { return intake }
        let hour = { (key: String) in hours[key] ?? 0 }
        var layout = SleepNightLayout(sleepStart: start)
        layout.deep = hour("deep")
        layout.core = hour("core")
        layout.rem = hour("rem")
        layout.awake = hour("awake")
        layout.asleep = max(hour("totalSleep"), layout.deep + layout.core + layout.rem)
        if let end = instant("sleepEnd") { layout.inBed = (start, end) }
        let source = HealthSource.named(String(((night["source"] as? String) ?? "Pulse").prefix(200)))
        intake.sleep = layout.segments(source: source, path: "night")
        return intake
    }
}
