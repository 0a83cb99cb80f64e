import Domain
import Foundation

/// One imported item: where it came from (the rows it stands for: a freeze is a run of skipped
/// days, each a row of the file), the stream its commands write (its lane), and its steps.
struct ImportItem: Sendable {
    let places: [ImportPlace]
    let lane: String
    let steps: [ImportStep]

    init(place: ImportPlace, lane: String, steps: [ImportStep]) {
        self.init(places: [place], lane: lane, steps: steps)
    }

    init(places: [ImportPlace], lane: String, steps: [ImportStep]) {
        self.places = places
        self.lane = lane
        self.steps = steps
    }
}

extension ImportService {
    /// Runs `items` with up to `width` lanes at once and records each one's outcome. A lane's
    /// items run one after another in the order given (a habit's logs, a series' tasks: one
    /// stream's commands in order, never racing each other); different lanes (other habits,
    /// every transaction) side by side. Callers pass items whose lanes depend on nothing else in
    /// the batch: a habit's logs only after every habit of the file is created.
    func run(_ owner: UUID, _ items: [ImportItem], dryRun: Bool, into report: inout ImportReport) async throws {
        guard !items.isEmpty else { return }
        var lanes: [String: [Int]] = [:]
        var order: [String] = []
        for (index, item) in items.enumerated() {
            if lanes[item.lane] == nil { order.append(item.lane) }
            lanes[item.lane, default: []].append(index)
        }
        var outcomes = [ImportOutcome?](repeating: nil, count: items.count)
        try await withThrowingTaskGroup(of: [(Int, ImportOutcome)].self) { group in
            var next = order.makeIterator()
            func start() {
                guard let lane = next.next(), let indexes = lanes[lane] else { return }
                let work = indexes.map { ($0, items[$0].steps) }
                group.addTask {
                    var done: [(Int, ImportOutcome)] = []
                    for (index, steps) in work { done.append((index, try await perform(owner, steps, dryRun: dryRun))) }
                    return done
                }
            }
            for _ in 0..<width { start() }
            while let finished = try await group.next() {
                for (index, outcome) in finished { outcomes[index] = outcome }
                start()
            }
        }
        for (item, outcome) in zip(items, outcomes) {
            for place in item.places { report.record(outcome ?? .failed("not run"), at: place) }
        }
    }
}
