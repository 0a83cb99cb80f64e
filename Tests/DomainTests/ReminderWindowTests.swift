import Domain
import Foundation
import Testing

/// The job finds who has something due in a minute by the times of day each zone's wall clock
/// covers (`ReminderWindow`); a time that falls due in the window must always be in a range.
@Suite struct ReminderWindowTests {
    static let belgrade = TimeZone(identifier: "Europe/Belgrade") ?? .gmt
    static func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? .distantPast }

    @Test func aMinuteIsTheMinuteOnTheZonesWallClock() {
        // Given 08:00:30 to 08:01:30 in Belgrade (UTC+2 in June)
        let ranges = ReminderWindow.ranges(from: Self.instant("2026-06-01T06:00:30Z"), to: Self.instant("2026-06-01T06:01:30Z"), in: Self.belgrade)
        // Then only 08:01 is in it: 08:00 came before the window opened
        #expect(ranges == [.init(after: "08:00", through: "08:01")])
    }

    @Test func aWindowWithNoMinuteBoundaryHasNoTime() {
        let ranges = ReminderWindow.ranges(from: Self.instant("2026-06-01T06:00:10Z"), to: Self.instant("2026-06-01T06:00:50Z"), in: Self.belgrade)
        #expect(ranges.isEmpty)
    }

    @Test func aWindowOverMidnightIsTheEndOfOneDayAndTheStartOfTheNext() {
        let ranges = ReminderWindow.ranges(from: Self.instant("2026-06-01T21:58:00Z"), to: Self.instant("2026-06-01T22:03:00Z"), in: Self.belgrade)
        #expect(ranges == [.init(after: "23:58", through: "99:99"), .init(after: "", through: "00:03")])
    }

    @Test func aTransitionOrADayOrMoreIsTheWholeDay() {
        // 2026-03-29 02:00 CET → 03:00 CEST in Belgrade, at 01:00Z
        #expect(ReminderWindow.ranges(from: Self.instant("2026-03-29T00:59:00Z"), to: Self.instant("2026-03-29T01:00:00Z"), in: Self.belgrade) == [.wholeDay])
        #expect(ReminderWindow.ranges(from: Self.instant("2026-06-01T00:00:00Z"), to: Self.instant("2026-06-02T00:00:00Z"), in: Self.belgrade) == [.wholeDay])
    }

    /// Every time of day whose moment (as the planner computes it, `LocalDueTime.instant`) falls
    /// in a window is in one of the window's ranges: the index never hides a due reminder. Over 60
    /// windows per zone of one to 180 minutes across a year of three zones with transitions (one of 30
    /// minutes), each at every minute of the day.
    @Test func everyTimeDueInAWindowIsInItsRanges() {
        let zones = ["Europe/Belgrade", "America/New_York", "Australia/Lord_Howe"].compactMap(TimeZone.init(identifier:))
        var generator = SplitMix(seed: 30)
        let year = Self.instant("2026-01-01T00:00:00Z").timeIntervalSince1970
        for zone in zones {
            for _ in 0..<60 {
                // Minutes near the zone's transitions are where a mistake would hide: half the
                // windows start within a day of one.
                var start = year + Double(Int.random(in: 0..<365 * 86_400, using: &generator))
                if Bool.random(using: &generator), let next = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: start)) {
                    start = next.timeIntervalSince1970 + Double(Int.random(in: -7_200...7_200, using: &generator))
                }
                let from = Date(timeIntervalSince1970: start), to = from.addingTimeInterval(Double(Int.random(in: 60...10_800, using: &generator)))
                let ranges = ReminderWindow.ranges(from: from, to: to, in: zone)
                let firstDay = LogicalDay.date(of: from, in: zone, dayStartHour: 0).adding(days: -1)
                for day in 0...2 {
                    for minute in 0..<1_440 {
                        let time = LocalTime(hour: minute / 60, minute: minute % 60)
                        let due = LocalDueTime.instant(firstDay.adding(days: day), time, in: zone)
                        guard due > from, due <= to else { continue }
                        let text = time.description
                        #expect(ranges.contains { text > $0.after && text <= $0.through }, "\(text) due at \(due) in \(zone.identifier), window \(from)–\(to), ranges \(ranges)")
                    }
                }
            }
        }
    }
}
