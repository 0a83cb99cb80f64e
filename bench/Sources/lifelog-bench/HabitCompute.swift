import ArgumentParser
import Domain
import Foundation

/// The domain's share of `GET /habits`: streaks and states of 30 habits over two years.
struct HabitCompute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "habit-compute", abstract: "Time HabitCalculator.state alone.")
    @Option var habits = 30
    @Option var days = 730
    @Option var rounds = 50

    func run() async throws {
        let today = LocalDate(daysSinceEpoch: 20_600)
        let start = today.adding(days: -days)
        let schedules: [HabitSchedule] = [.daily, .weekdays([1, 3, 5]), .timesPerWeek(3), .everyNDays(2), .monthly(.day(31))]
        let all = (0..<habits).map { n -> HabitFacts in
            var facts = HabitFacts(start: start, schedule: schedules[n % schedules.count], target: n % 6 == 5 ? 8 : nil)
            for d in 0..<days where (d * 7 + n) % 10 < 7 { facts.values[start.adding(days: d)] = n % 6 == 5 ? 8 : 1 }
            return facts
        }
        let clock = ContinuousClock()
        var samples: [Double] = []
        var checksum = 0
        for _ in 0..<rounds {
            let began = clock.now
            for facts in all { checksum &+= HabitCalculator.state(facts, today: today).bestStreak }
            samples.append(seconds(clock.now - began) * 1000)
        }
        samples.sort()
        print(String(format: "habit-compute: %d habits x %d days: p50 %.2f ms, max %.2f ms per GET-equivalent (checksum %d)",
                     habits, days, percentile(samples, 0.5), samples.last ?? 0, checksum))
    }
}
