import Foundation

/// Which times of day (`HH:MM`, as stored) can fall due in a window of instants, in one zone:
/// what lets the job find the few users with something due in a minute by index, instead of
/// reading every user (issue 30). Each range is (`after`, `through`] in text order, which for
/// `HH:MM` is time order.
public enum ReminderWindow {
    public struct Range: Sendable, Hashable {
        public var after: String
        public var through: String
        public init(after: String, through: String) {
            self.after = after
            self.through = through
        }
        /// Every time of day.
        public static let wholeDay = Range(after: "", through: "99:99")
    }

    /// The ranges of (`from`, `to`] on `zone`'s wall clock. Exact while the zone's offset is the
    /// same at both ends; a window with a transition in it (a 02:30 in a spring-forward gap is
    /// due at the transition itself) or a day or more long gives the whole day, so the caller's
    /// exact check (`ReminderPlanner.mayFire`) decides.
    public static func ranges(from: Date, to: Date, in zone: TimeZone) -> [Range] {
        guard from < to else { return [] }
        let before = zone.secondsFromGMT(for: from), after = zone.secondsFromGMT(for: to)
        guard to.timeIntervalSince(from) < 86_400, before == after else { return [.wholeDay] }
        let (startDay, start) = minute(of: from, offset: before)
        let (endDay, end) = minute(of: to, offset: after)
        if startDay == endDay { return start == end ? [] : [Range(after: start, through: end)] }
        // Past midnight: the end of the first day and the start of the next.
        return [Range(after: start, through: Range.wholeDay.through), Range(after: Range.wholeDay.after, through: end)]
    }

    /// The wall-clock day number and minute (`HH:MM`, seconds dropped) of an instant.
    static func minute(of instant: Date, offset: Int) -> (Int64, String) {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let day = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let ofDay = Int(seconds - day * 86_400)
        return (day, LocalTime(hour: ofDay / 3_600, minute: ofDay % 3_600 / 60).description)
    }
}
