import Foundation

/// Checks a decoded intake and turns its items into records in lifelog's units. A bad item is
/// reported with its reason and left out; the good ones go on.
public enum HealthIntakeRules {
    /// How far ahead of now an item may end: a phone's clock a little fast is fine, tomorrow is not.
    public static let futureAllowance: TimeInterval = 86_400
    /// The longest a single sample, sleep segment or workout may last.
    public static let longestItem: TimeInterval = 7 * 86_400

    public struct Checked: Sendable, Equatable {
        public var records: [HealthRecord] = []
        public var deletions: [String] = []
        public var errors: [HealthItemError] = []
        /// Items left out for their errors (an item with several errors counts once).
        public var rejected = 0
        public var skipped = 0
    }

    /// The records of `intake`, dated in `timeZone` (the user's, when it arrives).
    public static func check(_ intake: HealthIntake, timeZone: TimeZone, now: Date) -> Checked {
        // Over 60 lines: one loop per kind of item, each check failing the item once.
        var checked = Checked()
        checked.errors = intake.errors
        checked.rejected = intake.rejected
        checked.skipped = intake.skipped
        let latest = now.addingTimeInterval(futureAllowance)
        let dates = LocalDating(timeZone: timeZone)

        // Each check fails the item once: its error, then `continue`.
        for sample in intake.samples {
            let fail = { (field: String, message: String) in
                checked.errors.append(HealthItemError(item: sample.path, field: field, message: message))
                checked.rejected += 1
            }
            guard let metric = HealthMetric(rawValue: sample.metric) else {
                fail("metric", "unknown metric; known: \(HealthMetric.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            guard sample.value.isFinite else { fail("value", "must be a number"); continue }
            guard let value = metric.normalized(sample.value, unit: sample.unit) else {
                fail("unit", "\(sample.unit ?? "") is not a unit of \(metric.rawValue)")
                continue
            }
            guard metric.plausibleRange.contains(value) else {
                fail("value", "\(Self.figure(value)) \(metric.unit) is outside what a \(metric.rawValue) reading can be "
                     + "(\(Self.figure(metric.plausibleRange.lowerBound))–\(Self.figure(metric.plausibleRange.upperBound)))")
                continue
            }
            if let message = timeProblem(start: sample.start, end: sample.end, latest: latest) { fail("end", message); continue }
            if let message = uuidProblem(sample.uuid) { fail("uuid", message); continue }
            let start = seconds(sample.start), end = seconds(sample.end)
            // A summary's extremes in the stored unit; one outside what a reading can be is left out, not the value.
            let extreme = { (given: Double?) in
                given.flatMap { metric.normalized($0, unit: sample.unit) }.flatMap { metric.plausibleRange.contains($0) ? $0 : nil }
            }
            checked.records.append(HealthRecord(
                uuid: normalizedUUID(sample.uuid), kind: .quantity, name: metric.rawValue, value: value,
                startSeconds: start, endSeconds: end, date: sample.localDate ?? dates.date(start), source: sample.source, series: sample.series,
                min: extreme(sample.min), max: extreme(sample.max)))
        }

        for segment in intake.sleep {
            let fail = { (field: String, message: String) in
                checked.errors.append(HealthItemError(item: segment.path, field: field, message: message))
                checked.rejected += 1
            }
            guard let stage = SleepStage(rawValue: segment.stage) else {
                fail("stage", "unknown stage; known: \(SleepStage.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            if let message = timeProblem(start: segment.start, end: segment.end, latest: latest) { fail("end", message); continue }
            if let message = uuidProblem(segment.uuid) { fail("uuid", message); continue }
            let start = seconds(segment.start), end = seconds(segment.end)
            checked.records.append(HealthRecord(
                uuid: normalizedUUID(segment.uuid), kind: .sleep, name: stage.rawValue, value: nil,
                startSeconds: start, endSeconds: end, date: dates.night(end), source: segment.source, series: .sample))
        }

        for workout in intake.workouts {
            let fail = { (field: String, message: String) in
                checked.errors.append(HealthItemError(item: workout.path, field: field, message: message))
                checked.rejected += 1
            }
            let type = workout.type.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !type.isEmpty, type.count <= 100 else { fail("type", "must be 1 to 100 characters"); continue }
            if let message = timeProblem(start: workout.start, end: workout.end, latest: latest) { fail("end", message); continue }
            if let message = uuidProblem(workout.uuid) { fail("uuid", message); continue }
            let figures = [("active_energy_kcal", workout.activeEnergyKcal, HealthMetric.activeEnergy.plausibleRange),
                           ("distance_m", workout.distanceM, HealthMetric.distance.plausibleRange),
                           ("avg_heart_rate", workout.avgHeartRate, HealthMetric.heartRate.plausibleRange)]
            if let bad = figures.first(where: { _, value, range in value.map { !$0.isFinite || !range.contains($0) } ?? false }) {
                fail(bad.0, "is outside what a workout can have"); continue
            }
            let start = seconds(workout.start), end = seconds(workout.end)
            checked.records.append(HealthRecord(
                uuid: normalizedUUID(workout.uuid), kind: .workout, name: type, value: nil,
                startSeconds: start, endSeconds: end, date: dates.date(start), source: workout.source, series: .sample,
                workout: .init(activeEnergyKcal: workout.activeEnergyKcal, distanceM: workout.distanceM, avgHeartRate: workout.avgHeartRate)))
        }

        for (index, uuid) in intake.deletions.enumerated() {
            guard let normalized = normalizedUUID(uuid) else {
                checked.errors.append(HealthItemError(index: index, field: "deletions[\(index)]", message: "must be a sample's uuid"))
                checked.rejected += 1
                continue
            }
            checked.deletions.append(normalized)
        }
        return checked
    }

    static func timeProblem(start: Date, end: Date, latest: Date) -> String? {
        // A duration a format turned into an instant (start + NaN seconds) is no time at all.
        guard start.timeIntervalSince1970.isFinite, end.timeIntervalSince1970.isFinite else { return "is not a time" }
        if end < start { return "is before start" }
        if end > latest { return "is more than a day in the future" }
        if end.timeIntervalSince(start) > longestItem { return "is more than 7 days after start" }
        if start.timeIntervalSince1970 < 946_684_800 { return "start is before 2000" }
        return nil
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// A client's id. A UUID is lowercased, so that one uuid sent in two cases is one item; any
    /// other non-empty id of up to `maxUUIDLength` characters is kept as sent, case included: exporters
    /// other than HealthKit have ids of their own, and two that differ only in case are two items.
    public static func normalizedUUID(_ uuid: String?) -> String? {
        guard let uuid else { return nil }
        // A UUID as sent, with nothing to trim, is taken without Foundation's trimming (which
        // copies through NSString): a million items' ids made a fifth of a re-sent sync's work.
        if isUUID(uuid) { return uuid.utf8.contains(where: { (0x41...0x46).contains($0) }) ? uuid.lowercased() : uuid }
        let trimmed = uuid.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= maxUUIDLength else { return nil }
        return isUUID(trimmed) ? trimmed.lowercased() : trimmed
    }

    /// 8-4-4-4-12 hexadecimal digits, either case.
    static func isUUID(_ text: String) -> Bool {
        guard text.utf8.count == 36 else { return false }
        for (index, byte) in text.utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }

    public static let maxUUIDLength = 100

    /// An id too long to keep is the item's error, not a reason to store it without its id
    /// (where a later edit or deletion by that id would then find nothing).
    static func uuidProblem(_ uuid: String?) -> String? {
        // No more bytes than allowed is no more characters, trimmed or not.
        guard let uuid, uuid.utf8.count > maxUUIDLength, uuid.trimmingCharacters(in: .whitespaces).unicodeScalars.count > maxUUIDLength else {
            return nil
        }
        return "must be at most \(maxUUIDLength) characters"
    }

    static func figure(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Local dates of instants in one zone, fast enough for a batch of thousands: the zone's offset
/// is asked once per instant, the date is arithmetic.
public struct LocalDating: Sendable {
    public let timeZone: TimeZone
    public init(timeZone: TimeZone) { self.timeZone = timeZone }

    /// Seconds since 1970 of the local wall clock at `seconds`.
    func local(_ seconds: Int64) -> Int64 {
        seconds + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    /// The local calendar date of an instant.
    public func date(_ seconds: Int64) -> LocalDate {
        LocalDate(daysSinceEpoch: Int(floorDivide(local(seconds), 86_400)))
    }

    /// The night an instant ends: sleep ending at or after 18:00 local belongs to the next
    /// morning's date (DESIGN §4: the night of D ends in [D-1 18:00, D 18:00)).
    public func night(_ endSeconds: Int64) -> LocalDate {
        let local = local(endSeconds)
        let day = floorDivide(local, 86_400)
        let hour = (local - day * 86_400) / 3_600
        return LocalDate(daysSinceEpoch: Int(day)).adding(days: hour >= 18 ? 1 : 0)
    }

    /// The instant local midnight starts `date` (the first instant of the date, DST gaps included).
    public func startOfDay(_ date: LocalDate) -> Int64 {
        let guess = Int64(date.daysSinceEpoch) * 86_400
        // The offset at the guess can differ from the offset at the true instant across a DST
        // change; asking again at the corrected instant settles it.
        var instant = guess - Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(guess))))
        instant = guess - Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
        return instant
    }

    private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}
