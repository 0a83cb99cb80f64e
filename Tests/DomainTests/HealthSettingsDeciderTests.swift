import Domain
import Foundation
import Testing

/// Given events, when a command, then events or an error: a user's manual values, source order,
/// check-ins and acknowledged findings (issue 25: this decider had no tests of its own).
@Suite struct HealthSettingsDeciderTests {
    let today = LocalDate("2026-03-10") ?? LocalDate(daysSinceEpoch: 0)
    var now: DecisionTime { DecisionTime(instant: Date(timeIntervalSince1970: 1_773_100_000), today: today) }
    var nothing: Given<HealthSettingsDecider> { Given(HealthSettingsDecider.self) }

    @Test func aManualValueIsConvertedCheckedAndStoredOnce() throws {
        // 154 lb is 69.853 kg: stored in lifelog's unit, read so at the edge.
        let pounds = try ManualValue.read(metric: .bodyMass, date: today, value: 154, unit: "lb").get()
        #expect(pounds.value == 154 * 0.45359237)
        let set = HealthEvent.manualValueSet(.init(metric: .bodyMass, date: today, value: 154 * 0.45359237))
        nothing.then(.setManual(pounds), at: now, [set])
        Given(HealthSettingsDecider.self, [set]).thenNothing(.setManual(pounds), at: now)
        #expect(throws: ValidationFailure("unit", "kg is not a unit of steps")) {
            try ManualValue.read(metric: .steps, date: today, value: 1, unit: "kg").get()
        }
        #expect(throws: ValidationFailure.self) { try ManualValue.read(metric: .steps, date: today, value: -5, unit: nil).get() }
        let tomorrow = try ManualValue.read(metric: .steps, date: today.adding(days: 1), value: 5, unit: nil).get()
        nothing.thenThrows(.setManual(tomorrow), at: now, ValidationFailure("date", "is in the future"))
    }

    @Test func clearingAValueThatIsNotThereIsNotFound() {
        nothing.thenThrows(.clearManual(metric: .steps, date: today), at: now, ResourceError.notFound)
        Given(HealthSettingsDecider.self, [.manualValueSet(.init(metric: .steps, date: today, value: 9_000))])
            .then(.clearManual(metric: .steps, date: today), at: now, [.manualValueCleared(.init(metric: .steps, date: today))])
    }

    @Test func theSourceOrderNamesEachKindOnceAndTheSameOrderStoresNothing() {
        let order: [HealthSourceKind] = [.ring, .watch, .phone]
        nothing.then(.setPriority(order), at: now, [.sourcePriorityChanged(.init(priority: HealthSourcePriority(order: order)))])
        nothing.thenNothing(.setPriority(HealthSourcePriority.default.order), at: now)
        nothing.thenThrows(.setPriority([.watch, .watch]), at: now, ValidationFailure("order", "names a kind twice"))
        nothing.thenThrows(.setPriority([]), at: now, ValidationFailure("order", "must name at least one source kind"))
    }

    @Test func aCheckInIsAFeelingFromOneToFiveWithinTheLastYear() {
        let recorded = HealthEvent.checkInRecorded(.init(date: today, feeling: 4, note: "slept well"))
        nothing.then(.checkIn(date: today, feeling: 4, note: "  slept well "), at: now, [recorded])
        Given(HealthSettingsDecider.self, [recorded]).thenNothing(.checkIn(date: today, feeling: 4, note: "slept well"), at: now)
        nothing.thenThrows(.checkIn(date: today, feeling: 6, note: nil), at: now, ValidationFailure.self)
        nothing.thenThrows(.checkIn(date: today.adding(days: -367), feeling: 3, note: nil), at: now, ValidationFailure("date", "must be within the last year"))
    }

    @Test func anOpenFindingIsAcknowledgedOnceAndAResolvedOneIsAConflict() {
        let finding = UUID()
        nothing.then(.acknowledgeFinding(finding, status: .open), at: now, [.findingAcknowledged(.init(findingId: finding))])
        nothing.thenNothing(.acknowledgeFinding(finding, status: .acknowledged), at: now)
        nothing.thenThrows(.acknowledgeFinding(finding, status: .resolved), at: now, ResourceError.self)
    }
}
