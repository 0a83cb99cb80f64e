import Domain
import Foundation
import Testing

/// `recovery-v1`, given figures per date, without a database.
@Suite struct RecoveryScoreTests {
    static let day = LocalDate(year: 2026, month: 5, day: 31) ?? LocalDate(daysSinceEpoch: 0)

    /// `days` dates before `day`, each with `value(offset)` (offset 1 is the day before).
    static func history(_ days: Int, _ value: (Int) -> Double) -> [LocalDate: Double] {
        Dictionary(uniqueKeysWithValues: (1...days).map { (day.adding(days: -$0), value($0)) })
    }

    /// Thirty days of varied baselines (sd > 0) whose means the date's figures then equal.
    static func atBaseline(sleep: Double?, hrv: Bool = true, restingHeartRate: Bool = true) -> RecoveryInputs {
        var inputs = RecoveryInputs(
            sleepMinutes: history(30) { $0 % 2 == 0 ? 420 : 480 },
            hrvMs: history(30) { $0 % 2 == 0 ? 40 : 90 },
            restingHeartRate: history(30) { $0 % 2 == 0 ? 50 : 60 })
        inputs.sleepMinutes[day] = sleep
        if hrv { inputs.hrvMs[day] = (40.0 * 90).squareRoot() }  // ln of it is the mean of ln 40 and ln 90
        if restingHeartRate { inputs.restingHeartRate[day] = 55 }
        return inputs
    }

    @Test func everyComponentAtItsBaselineWithEightHoursOfSleepIs82() {
        let score = RecoveryFormula.score(date: Self.day, inputs: Self.atBaseline(sleep: 480))
        #expect(score.score == 82.0)
        #expect(score.status == .good)
        #expect(score.formulaVersion == "recovery-v1")
        let hrv = score.components.first { $0.key == .hrv }
        #expect(hrv?.baselineDays == 30)
        #expect(abs(hrv?.z ?? 1) < 1e-9)
        #expect(hrv?.score.map { abs($0 - 70) < 1e-9 } == true)
        #expect(zip(score.components.map(\.weightUsed), [0.40, 0.35, 0.25]).allSatisfy { abs($0 - $1) < 1e-12 })
    }

    @Test func theSameDayWithoutHRVRenormalisesTo88Point5() {
        let score = RecoveryFormula.score(date: Self.day, inputs: Self.atBaseline(sleep: 480, hrv: false))
        #expect(score.score == 88.5)
        let hrv = score.components.first { $0.key == .hrv }
        #expect(hrv?.available == false)
        #expect(hrv?.reason == .noData)
        #expect(hrv?.weightUsed == 0)
        #expect(abs((score.components.first { $0.key == .sleep }?.weightUsed ?? 0) - 0.40 / 0.65) < 1e-12)
    }

    @Test func theMapIsLinearInEachPieceAndClamped() {
        let cases: [(Double, Double)] = [(-4, 0), (-3, 0), (-2.5, 20), (-2, 40), (-1, 55), (0, 70), (1, 85), (2, 100), (5, 100)]
        for (z, expected) in cases {
            #expect(abs(RecoveryFormula.map(z) - expected) < 1e-9, "m(\(z))")
        }
    }

    @Test func aHigherRestingHeartRateScoresLowerAndZIsNotNegated() {
        var inputs = Self.atBaseline(sleep: 480)
        // sd of the alternating 50/60 baseline over 30 days is about 5.085.
        inputs.restingHeartRate[Self.day] = 65
        let score = RecoveryFormula.score(date: Self.day, inputs: inputs)
        let rhr = score.components.first { $0.key == .restingHeartRate }
        let z = rhr?.z ?? 0
        #expect(z > 1.9 && z < 2.0)
        #expect(abs((rhr?.score ?? 0) - RecoveryFormula.map(-z)) < 1e-9)
        #expect((score.score ?? 100) < 82)
    }

    @Test func aFlatBaselineHasZZero() {
        let inputs = RecoveryInputs(sleepMinutes: [Self.day: 240], hrvMs: Self.history(10) { _ in 50 }.merging([Self.day: 80]) { $1 },
                                    restingHeartRate: [:])
        let score = RecoveryFormula.score(date: Self.day, inputs: inputs)
        #expect(score.components.first { $0.key == .hrv }?.z == 0)
        // Sleep 50 (0.40) and HRV 70 (0.35), renormalised: (20 + 24.5) / 0.75 = 59.333…
        #expect(score.score == 59.3)
        #expect(score.status == .fair)
    }

    @Test func statusThresholdsAreOnTheRoundedScore() {
        #expect(RecoveryScore.Status.of(score: 33.9) == .poor)
        #expect(RecoveryScore.Status.of(score: 34.0) == .fair)
        #expect(RecoveryScore.Status.of(score: 66.9) == .fair)
        #expect(RecoveryScore.Status.of(score: 67.0) == .good)
        #expect(RecoveryFormula.rounded(0.25) == 0.2)  // an exact tie goes to the even digit
        #expect(RecoveryFormula.rounded(0.75) == 0.8)
        #expect(RecoveryScore.Status.of(score: RecoveryFormula.rounded(66.96)) == .good)
        #expect(RecoveryScore.Status.of(score: RecoveryFormula.rounded(33.94)) == .poor)
        #expect(RecoveryFormula.rounded(88.4615) == 88.5)
        #expect(RecoveryScore.Status.good.colorToken == "ds.semantic.positive")
        #expect(RecoveryScore.Status.fair.colorToken == "ds.semantic.warning")
        #expect(RecoveryScore.Status.poor.colorToken == "ds.semantic.negative")
        #expect(RecoveryScore.Status.calibrating.colorToken == "ds.semantic.neutral")
    }

    @Test func aNewUserOnDayFiveIsCalibratingWithDaysUntilReady() {
        // Data on days 1 to 5: the date has four days of baseline.
        let inputs = RecoveryInputs(
            sleepMinutes: Self.history(4) { _ in 450 }.merging([Self.day: 450]) { $1 },
            hrvMs: Self.history(4) { _ in 50 }.merging([Self.day: 50]) { $1 },
            restingHeartRate: Self.history(4) { _ in 55 }.merging([Self.day: 55]) { $1 })
        let score = RecoveryFormula.score(date: Self.day, inputs: inputs)
        #expect(score.score == nil)
        #expect(score.status == .calibrating)
        #expect(score.daysUntilReady == 3)
        #expect(score.components.first { $0.key == .hrv }?.reason == .calibrating)
        #expect(score.components.first { $0.key == .sleep }?.available == true)
    }

    @Test func onlySleepIsUnscorableNeverZero() {
        let inputs = RecoveryInputs(sleepMinutes: Self.history(30) { _ in 400 }.merging([Self.day: 420]) { $1 })
        let score = RecoveryFormula.score(date: Self.day, inputs: inputs)
        #expect(score.score == nil)
        #expect(score.status == .unscorable)
        #expect(score.daysUntilReady == nil)
        #expect(score.components.filter(\.available).map(\.key) == [.sleep])
    }

    @Test func theBaselineIsAsOfAndExcludesTheDateItself() {
        var inputs = Self.atBaseline(sleep: 480)
        let before = RecoveryFormula.score(date: Self.day, inputs: inputs)
        // A figure 61 days back is outside the window; one on the date is not in its own baseline.
        inputs.hrvMs[Self.day.adding(days: -61)] = 500
        #expect(RecoveryFormula.score(date: Self.day, inputs: inputs) == before)
        inputs.hrvMs[Self.day.adding(days: -60)] = 500
        #expect(RecoveryFormula.score(date: Self.day, inputs: inputs).components.first { $0.key == .hrv }?.baselineDays == 31)
        #expect(RecoveryFormula.affectedDates(by: Self.day) == Self.day.daysSinceEpoch...(Self.day.daysSinceEpoch + 60))
    }
}

@Suite struct LabelCatalogueTests {
    @Test func everyLanguageHasEveryKeyAndNoEmptyText() {
        let keys = Set(LabelCatalogue.labels(.en).keys)
        for language in Language.allCases {
            let labels = LabelCatalogue.labels(language)
            #expect(Set(labels.keys) == keys, "\(language): missing \(keys.subtracting(labels.keys).sorted()), extra \(Set(labels.keys).subtracting(keys).sorted())")
            #expect(labels.values.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(language)")
        }
    }

    @Test func everyStatusComponentReasonAndMetricHasALabel() {
        var keys = RecoveryScore.Status.allCases.map(LabelCatalogue.status) + RecoveryComponent.Key.allCases.map(LabelCatalogue.component)
        keys += [LabelCatalogue.reason(.noData), LabelCatalogue.reason(.calibrating), LabelCatalogue.methodology]
        keys += HealthMetric.allCases.map(LabelCatalogue.metric)
        for key in keys {
            #expect(LabelCatalogue.labels(.en)[key] != nil, "\(key)")
        }
        #expect(LabelCatalogue.text("recovery.status.good", .ru) == "Хорошо")
        #expect(LabelCatalogue.text("recovery.status.good", .sr) == "Dobro")
    }
}
