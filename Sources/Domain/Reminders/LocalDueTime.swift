import Foundation

/// Where a local date and time of day falls on the timeline (DESIGN §4, Reminders). Local
/// times, not UTC offsets: a time that does not exist (a spring-forward gap) is the first valid
/// instant after it, which is the transition itself (02:30 → 03:00); a time that happens twice
/// (fall back) is its first occurrence.
public enum LocalDueTime {
    public static func instant(_ date: LocalDate, _ time: LocalTime, in zone: TimeZone) -> Date {
        let wall = Int64(date.daysSinceEpoch) * 86_400 + Int64(time.hour * 3_600 + time.minute * 60)
        func offset(_ seconds: Int64) -> Int64 { Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))) }
        // The offsets a day either side cover both sides of any transition near the wall time.
        let candidates = Set([-86_400, 0, 86_400].map { wall - offset(wall + $0) }).sorted()
        if let first = candidates.first(where: { wall - $0 == offset($0) }) {
            return Date(timeIntervalSince1970: Double(first))
        }
        // In a gap: the transition lies between the instants the two offsets give; find its second.
        guard var low = candidates.first, var high = candidates.last else { return Date(timeIntervalSince1970: Double(wall)) }
        let after = offset(high)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(middle) == after { high = middle } else { low = middle }
        }
        return Date(timeIntervalSince1970: Double(high))
    }

    /// `YYYY-MM-DDTHH:MM`, the user's wall clock without an offset.
    public static func text(_ date: LocalDate, _ time: LocalTime) -> String {
        "\(date)T\(time)"
    }

    /// The wall clock of `zone` at `instant`, as `text` writes it: what a reminder's `due_local`
    /// says, so it always names a time that exists (a 02:30 in a spring-forward gap is due at
    /// the transition and says 03:00, issue 26).
    public static func text(at instant: Date, in zone: TimeZone) -> String {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(zone.secondsFromGMT(for: instant))
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let ofDay = Int(seconds - days * 86_400)
        let time = LocalTime(hour: ofDay / 3_600, minute: ofDay % 3_600 / 60)
        return text(LocalDate(daysSinceEpoch: Int(days)), time)
    }
}

/// The zones a user has lived in, each from the instant it was set: a reminder uses the zone in
/// force at its due moment, so a traveller gets their 07:30 in the new zone.
public struct ZoneHistory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var since: Date
        public var zone: TimeZone
        public init(since: Date, zone: TimeZone) {
            self.since = since
            self.zone = zone
        }
    }

    /// Oldest first; the first entry counts for every instant before it too.
    public private(set) var entries: [Entry]

    public init(_ entries: [Entry]) {
        self.entries = entries.sorted { $0.since < $1.since }
    }

    public init(_ zone: TimeZone) {
        entries = [Entry(since: .distantPast, zone: zone)]
    }

    public func zone(at instant: Date) -> TimeZone? {
        (entries.last { $0.since <= instant } ?? entries.first)?.zone
    }

    /// The instant of a local date and time in the zone in force at that instant. Near a move,
    /// the earliest reading that is self-consistent wins; when none is (a move across the time
    /// itself), the current zone's reading does.
    public func instant(_ date: LocalDate, _ time: LocalTime) -> (Date, TimeZone)? {
        var seen = Set<String>()
        var readings: [(Date, TimeZone)] = []
        for entry in entries.reversed() where seen.insert(entry.zone.identifier).inserted {
            let instant = LocalDueTime.instant(date, time, in: entry.zone)
            if zone(at: instant)?.identifier == entry.zone.identifier { readings.append((instant, entry.zone)) }
        }
        if let first = readings.min(by: { $0.0 < $1.0 }) { return first }
        guard let current = entries.last?.zone else { return nil }
        return (LocalDueTime.instant(date, time, in: current), current)
    }
}
