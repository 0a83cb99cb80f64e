import Domain
import Foundation
import Testing

/// The briefing's composition, given figures, without a database.
@Suite struct BriefingTests {
    static let day = LocalDate(year: 2026, month: 5, day: 31) ?? LocalDate(daysSinceEpoch: 0)

    static func history(_ days: ClosedRange<Int>, before date: LocalDate = day, _ value: (Int) -> Double) -> [LocalDate: Double] {
        Dictionary(uniqueKeysWithValues: days.map { (date.adding(days: -$0), value($0)) })
    }

    static func night(_ date: LocalDate, asleep: Int) -> SleepNight {
        SleepNight(date: date, asleepMinutes: asleep, inBedMinutes: asleep + 20, awakeMinutes: 20, coreMinutes: asleep - 150, deepMinutes: 60,
                   remMinutes: 90, startSeconds: 0, endSeconds: 0, source: "Watch", segments: [])
    }

    /// Thirty days of a steady user, then: 7 h 30 of sleep, yesterday 11,000 steps (baseline 10,000),
    /// a resting heart rate 2 above its baseline (z ≈ 2), HRV at its flat baseline, a weight.
    static func fullDay(feeling: Int? = nil) -> BriefingInputs {
        var nights: [LocalDate: SleepNight] = [:]
        for offset in 1...30 { nights[day.adding(days: -offset)] = night(day.adding(days: -offset), asleep: 420) }
        nights[day] = night(day, asleep: 450)
        var days: [HealthMetric: [LocalDate: Double]] = [
            .steps: history(2...31) { _ in 10_000 }.merging([day.adding(days: -1): 11_000]) { $1 },
            .activeEnergy: history(1...31) { _ in 500 },
            .restingHeartRate: history(1...30) { $0 % 2 == 0 ? 54 : 56 }.merging([day: 57]) { $1 },
            .hrvSdnn: history(1...30) { _ in 50 }.merging([day: 50]) { $1 },
            .bodyMass: [day.adding(days: -3): 72.4],
        ]
        days[.spo2] = [day: 97]
        let recoveryInputs = RecoveryInputs(sleepMinutes: nights.mapValues { Double($0.asleepMinutes) }, hrvMs: days[.hrvSdnn] ?? [:],
                                            restingHeartRate: days[.restingHeartRate] ?? [:])
        return BriefingInputs(date: day, recovery: RecoveryFormula.score(date: day, inputs: recoveryInputs), nights: nights, days: days,
                              feeling: feeling)
    }

    @Test func sectionsWithDataComeInTheirFixedOrderWithDeltasAgainstTheBaseline() {
        let briefing = BriefingComposer.compose(Self.fullDay(), language: .en)
        #expect(briefing.sections.map(\.key) == [.recovery, .sleep, .activity, .cardio, .body])
        let activity = briefing.sections.first { $0.key == .activity }
        let steps = activity?.deltas.first { $0.metric == "steps" }
        #expect(steps?.value == 11_000)
        #expect(steps?.baseline == 10_000)
        #expect(steps?.change == 1_000)
        #expect(steps?.changePercent == 10)
        #expect(steps?.direction == .up)
        #expect(steps?.good == true)
        #expect(activity?.status == "good")
        #expect(activity?.summary == "Steps yesterday: 11,000")
        let energy = activity?.deltas.first { $0.metric == "active_energy" }
        #expect(energy?.direction == .flat)
        #expect(energy?.good == nil)
        let cardio = briefing.sections.first { $0.key == .cardio }
        let resting = cardio?.deltas.first { $0.metric == "resting_heart_rate" }
        #expect(resting?.direction == .up)
        #expect(resting?.good == false)
        #expect(cardio?.deltas.first { $0.metric == "spo2" }?.baseline == nil)
        #expect(briefing.sections.first { $0.key == .body }?.status == "neutral")
        #expect(briefing.sections.first { $0.key == .recovery }?.methodologyClass == "heuristic_personalized")
        #expect(briefing.sections.first { $0.key == .sleep }?.methodologyClass == "device_measured")
    }

    @Test func blocksAreComposedFromTheFiguresTheSameWayEveryTime() {
        let briefing = BriefingComposer.compose(Self.fullDay(), language: .en)
        #expect(briefing.blocks.sleep == "You slept 7 h 30 min, 30 min more than usual.")
        #expect(briefing.blocks.yesterday == "Yesterday: 11,000 steps and 500 kcal of active energy. That is 10% above your usual.")
        #expect(briefing.blocks.recovery?.hasPrefix("Your recovery is ") == true)
        #expect(briefing.blocks.recommendation != nil)
        #expect(BriefingComposer.compose(Self.fullDay(), language: .en) == briefing)
    }

    @Test func everyLanguageFillsEveryTemplate() {
        for language in Language.allCases {
            let briefing = BriefingComposer.compose(Self.fullDay(), language: language)
            let texts = briefing.sections.flatMap { [$0.title, $0.summary, $0.methodologyLabel] }
                + [briefing.blocks.sleep, briefing.blocks.yesterday, briefing.blocks.recovery, briefing.blocks.recommendation].compactMap { $0 }
            #expect(texts.count == 5 * 3 + 4)
            for text in texts {
                #expect(!text.isEmpty && !text.contains("{") && !text.contains("briefing."), "\(language): \(text)")
            }
        }
        let russian = BriefingComposer.compose(Self.fullDay(), language: .ru)
        #expect(russian.blocks.sleep == "Вы спали 7 ч 30 мин, на 30 мин больше обычного.")
        #expect(russian.sections.first { $0.key == .activity }?.summary == "Шаги вчера: 11\u{00A0}000")
        let serbian = BriefingComposer.compose(Self.fullDay(), language: .sr)
        #expect(serbian.sections.first { $0.key == .activity }?.summary == "Koraci juče: 11.000")
    }

    @Test func onlySectionsWithDataAndACalibratingScoreSaysWhen() {
        let date = Self.day
        let nights = [date: Self.night(date, asleep: 300), date.adding(days: -1): Self.night(date.adding(days: -1), asleep: 300)]
        let hrv = [date: 40.0, date.adding(days: -1): 42]
        let recovery = RecoveryFormula.score(date: date, inputs: RecoveryInputs(sleepMinutes: nights.mapValues { Double($0.asleepMinutes) }, hrvMs: hrv))
        let briefing = BriefingComposer.compose(BriefingInputs(date: date, recovery: recovery, nights: nights, days: [.hrvSdnn: hrv], feeling: nil), language: .ru)
        #expect(briefing.sections.map(\.key) == [.recovery, .sleep, .cardio])
        #expect(briefing.sections.first?.status == "calibrating")
        #expect(briefing.sections.first?.summary == "Калибровка: оценка через 6 дней")
        #expect(briefing.sections.first { $0.key == .sleep }?.status == "poor")
        #expect(briefing.blocks.yesterday == nil)
        #expect(briefing.blocks.sleep == "Вы спали 5 ч.")
        #expect(briefing.blocks.recommendation == "Носите часы ночью, чтобы следующие дни получили оценку.")
    }

    @Test func aLowCheckInOnAGoodDaySaysToListenToTheBody() {
        let good = Self.fullDay(feeling: 1)
        guard good.recovery.status == .good else {
            Issue.record("the full day should score good, not \(good.recovery.status)")
            return
        }
        #expect(BriefingComposer.compose(good, language: .en).blocks.recommendation == "Your score is good, but you feel low: listen to your body today.")
        #expect(BriefingComposer.compose(Self.fullDay(feeling: 4), language: .en).blocks.recommendation == "A good day for a harder workout.")
    }

    @Test func numbersDurationsAndPluralsAsEachLanguageWritesThem() {
        #expect(LabelFormat.integer(1_234_567, .en) == "1,234,567")
        #expect(LabelFormat.integer(1_234_567, .ru) == "1\u{00A0}234\u{00A0}567")
        #expect(LabelFormat.integer(1_234, .sr) == "1.234")
        #expect(LabelFormat.tenths(82, .en) == "82.0")
        #expect(LabelFormat.tenths(88.46, .sr) == "88,5")
        #expect(LabelFormat.duration(minutes: 45, .en) == "45 min")
        #expect(LabelFormat.duration(minutes: 480, .ru) == "8 ч")
        #expect([1, 2, 5, 11, 21, 22, 25].map { LabelFormat.days($0, .ru) } == ["1 день", "2 дня", "5 дней", "11 дней", "21 день", "22 дня", "25 дней"])
        #expect([1, 3, 21].map { LabelFormat.days($0, .sr) } == ["1 dan", "3 dana", "21 dan"])
        #expect([1, 3].map { LabelFormat.days($0, .en) } == ["1 day", "3 days"])
    }

    @Test func serbianIsWrittenInLatinScript() {
        let cyrillic = LabelCatalogue.labels(.sr).filter { $0.value.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) } }
        #expect(cyrillic.isEmpty, "\(cyrillic)")
    }
}
