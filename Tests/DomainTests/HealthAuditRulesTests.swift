import Domain
import Foundation
import Testing

/// The audit's rules at and just past their thresholds, without a database.
@Suite struct HealthAuditRulesTests {
    static let watch = HealthSource(name: "Watch", kind: .watch)
    static let phone = HealthSource(name: "iPhone", kind: .phone)

    static func sample(_ value: Double, _ start: Int64, _ end: Int64, _ source: HealthSource) -> CumulativeCredit.Sample {
        CumulativeCredit.Sample(value: value, startSeconds: start, endSeconds: end, source: source)
    }

    @Test func thresholdsAreStrictlyMoreThan() {
        #expect(HealthAudit.tooManyDuplicates(received: 40, duplicates: 9))
        #expect(!HealthAudit.tooManyDuplicates(received: 40, duplicates: 8))
        #expect(!HealthAudit.tooManyDuplicates(received: 0, duplicates: 0))
        #expect(HealthAudit.massDeletion(removed: 3, storedBefore: 20))
        #expect(!HealthAudit.massDeletion(removed: 2, storedBefore: 20))
        #expect(HealthAudit.arrivedLate(receivedAt: 7 * 86_400 + 1, end: 0))
        #expect(!HealthAudit.arrivedLate(receivedAt: 7 * 86_400, end: 0))
        #expect(HealthAudit.diverges(1_000, 740))
        #expect(!HealthAudit.diverges(1_000, 750))
        #expect(!HealthAudit.diverges(0, 0))
    }

    @Test func aGapNeedsTwentyFourOfTheThirtyDaysBefore() {
        let usual = Set((1...24).map { 100 - $0 })
        #expect(HealthAudit.gaps(present: usual, in: 100...100) == [100])
        #expect(HealthAudit.gaps(present: Set((1...23).map { 100 - $0 }), in: 100...100) == [])
        #expect(HealthAudit.gaps(present: usual.union([100]), in: 100...100) == [])
    }

    @Test func sourcesAreComparedOnlyOverTheTimeBothCovered() {
        // The watch covers 0–600 s (1,000 steps); the phone 300–1,200 s (900 steps, a third of it in the watch's time).
        let overlap = HealthAudit.overlap([Self.sample(1_000, 0, 600, Self.watch)], [Self.sample(900, 300, 1_200, Self.phone)])
        #expect(overlap?.seconds == 300)
        #expect(overlap?.a == 500)
        #expect(overlap?.b == 300)
        #expect(HealthAudit.overlap([Self.sample(1_000, 0, 600, Self.watch)], [Self.sample(900, 600, 1_200, Self.phone)]) == nil)
    }

    @Test func theStateIsTheWorstOpenSeverity() {
        #expect(HealthAudit.State.of(openSeverities: [.info, .info]) == .healthy)
        #expect(HealthAudit.State.of(openSeverities: [.info, .warning]) == .warning)
        #expect(HealthAudit.State.of(openSeverities: [.warning, .critical]) == .critical)
        #expect(HealthAudit.State.critical.colorToken == "ds.semantic.negative")
    }

    @Test func summariesInEveryLanguage() {
        let evidence: [String: Any] = ["removed": 3, "stored_before": 1_200, "percent": 15]
        #expect(HealthAudit.summary(.massDeletion, metric: "steps", evidence: evidence, language: .en)
                == "A deletion removed 3 of 1,200 Steps samples from older dates")
        #expect(HealthAudit.summary(.massDeletion, metric: "steps", evidence: evidence, language: .ru)
                == "Удаление убрало 3 из 1\u{00A0}200 образцов «Шаги» за прошлые даты")
        for type in HealthAudit.FindingType.allCases {
            for language in Language.allCases {
                let text = HealthAudit.summary(type, metric: "steps", evidence: ["max_days_late": 9], language: language)
                #expect(!text.isEmpty && !text.contains("{") && !text.contains("audit."), "\(type) \(language): \(text)")
            }
        }
    }

    @Test func daySpansMergeWhereTheyOverlapOrTouch() {
        #expect(DaySpans.merged([10...20, 0...5, 6...8, 15...30, 40...41]) == [0...8, 10...30, 40...41])
        #expect(DaySpans.merged([]) == [])
    }
}
