import Domain
import Foundation
import Testing

/// What the audit finds, decided without a database (issue 25 §3): the projector only reads
/// the figures and stores what these functions return.
@Suite struct HealthAuditDetectionTests {
    let day = LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0)

    @Test func aRequestWithTooManyDuplicatesAndLateItemsHasOneFindingOfEach() {
        let figures = HealthAudit.RequestFigures(
            intake: (format: "native", received: 40, duplicates: 9), receivedAt: 1_000, first: day.adding(days: -20), last: day,
            late: 3, lateFirst: day.adding(days: -20), lateLast: day.adding(days: -10), worst: 20 * 86_400 + 5)
        let found = HealthAudit.requestFindings(transaction: "77", figures)
        #expect(found.map(\.key) == ["duplicates|77", "historical_insertion|77"])
        #expect(found.first?.evidence == ["received": .number(40), "duplicates": .number(9), "percent": .number(23), "format": .text("native")])
        #expect(found.last?.evidence == ["count": .number(3), "max_days_late": .number(20)])
        #expect(found.allSatisfy { $0.detectedAt == 1_000 })
        var quiet = figures
        quiet.intake = (format: "native", received: 40, duplicates: 8)
        quiet.late = 0
        #expect(HealthAudit.requestFindings(transaction: "77", quiet).isEmpty)
    }

    @Test func aDeletionCuttingOldDataByMoreThanTenPercentIsAMassDeletion() {
        let old = day.adding(days: -30)
        let removed = (0..<3).map { HealthEvent.RecordsDeleted.Removed(key: "k\($0)", kind: .quantity, name: "steps", date: old) }
        let deleted = HealthEvent.RecordsDeleted(records: removed, storedBefore: [.init(name: "steps", date: old, count: 20)],
                                                 receivedAt: 5_000, today: day)
        let found = HealthAudit.massDeletions(deleted, transaction: 9)
        #expect(found == [HealthAudit.Finding(
            key: "mass_deletion|9|steps", type: .massDeletion, metric: "steps", from: old, to: old,
            evidence: ["removed": .number(3), "stored_before": .number(20), "percent": .number(15), "dates": .texts([old.description])],
            detectedAt: 5_000)])
        let recent = HealthEvent.RecordsDeleted(records: removed.map { var r = $0; r.date = day; return r },
                                                storedBefore: [.init(name: "steps", date: day, count: 20)], receivedAt: 5_000, today: day)
        #expect(HealthAudit.massDeletions(recent, transaction: 9).isEmpty)
    }

    @Test func gapsAreEvaluatedOverTouchedDaysAndTheirLookbackUpToTheLastClosedDay() {
        let latest = day
        let closed = latest.daysSinceEpoch - 1
        let touched = day.adding(days: -40)
        let spans = HealthAudit.gapSpans(touched: ["steps": [touched]], recentMetrics: ["sleep"], latest: latest)
        #expect(spans["steps"] == [touched.daysSinceEpoch...min(touched.daysSinceEpoch + 30, closed)])
        #expect(spans["sleep"] == [(closed - 30)...closed])
        // A touched day after the last closed one asks for nothing.
        #expect(HealthAudit.gapSpans(touched: ["steps": [latest]], recentMetrics: [], latest: latest).isEmpty)
        // Overlapping spans of one metric merge.
        let both = HealthAudit.gapSpans(touched: ["steps": [day.adding(days: -20)]], recentMetrics: ["steps"], latest: latest)
        #expect(both["steps"] == [(closed - 30)...closed])
    }

    @Test func aGapIsFoundWithItsEvidenceAndTheOtherDaysOfTheSpanClear() {
        let usual = Set((1...24).map { 100 - $0 })
        let (found, cleared) = HealthAudit.gapFindings(metric: "steps", present: usual.union([101]), in: 100...101)
        let date = LocalDate(daysSinceEpoch: 100)
        #expect(found == [HealthAudit.Finding(key: "gap|steps|\(date)", type: .gap, metric: "steps", from: date, to: date,
                                              evidence: ["days_with_data": .number(24), "of_days": .number(30)], detectedAt: 101 * 86_400)])
        #expect(cleared == ["gap|steps|\(LocalDate(daysSinceEpoch: 101))"])
    }

    @Test func pairsThatDisagreeOnThreeDaysOfTheWindowAreOneFindingEach() {
        let watch = HealthSource(name: "Watch", kind: .watch), phone = HealthSource(name: "iPhone", kind: .phone)
        let pairs = HealthAudit.overlaps(bySource: [
            "iPhone": [CumulativeCredit.Sample(value: 900, startSeconds: 300, endSeconds: 1_200, source: phone)],
            "Watch": [CumulativeCredit.Sample(value: 1_000, startSeconds: 0, endSeconds: 600, source: watch)],
        ])
        // Sources in order of their names; each counted only over the time both covered.
        #expect(pairs.map(\.sourceA) == ["Watch"])
        #expect(pairs.map(\.sourceB) == ["iPhone"])
        #expect(pairs.map(\.a) == [500])
        #expect(pairs.map(\.b) == [300])
        #expect(pairs.map(\.seconds) == [300])
        let days = (0..<3).map { HealthAudit.DayOverlap(date: day.adding(days: -$0), sourceA: "Watch", sourceB: "iPhone", a: 1_000, b: 700) }
            + [HealthAudit.DayOverlap(date: day.adding(days: -3), sourceA: "Watch", sourceB: "iPhone", a: 1_000, b: 990)]
        let found = HealthAudit.divergenceFindings(metric: "steps", days)
        #expect(found.map(\.key) == ["source_divergence|steps|Watch|iPhone"])
        #expect(found.first?.from == day.adding(days: -2))
        #expect(found.first?.to == day)
        #expect(found.first?.evidence["diverging_days"] == .number(3))
        #expect(found.first?.detectedAt == HealthAudit.endOf(day))
        #expect(HealthAudit.divergenceFindings(metric: "steps", Array(days.suffix(2))).isEmpty)
    }
}
