import Foundation

/// Counts a cumulative metric (steps, distance, energy) once where several sources cover the
/// same time. Within time a higher-priority source covers, only that source counts; a sample
/// of a lower source is credited with its value × the share of its duration no higher source
/// covered. A watch's 1,000 steps and a phone's 900 over the same ten minutes are 1,000; the
/// phone's 500 in a later walk without the watch add to them.
public enum CumulativeCredit {
    public struct Sample: Sendable, Equatable {
        public var value: Double
        public var startSeconds: Int64
        public var endSeconds: Int64
        public var source: HealthSource
        /// The lowest and highest reading the value summarises, when it summarises several.
        public var min: Double?
        public var max: Double?
        public init(value: Double, startSeconds: Int64, endSeconds: Int64, source: HealthSource, min: Double? = nil, max: Double? = nil) {
            self.value = value
            self.startSeconds = startSeconds
            self.endSeconds = endSeconds
            self.source = source
            self.min = min
            self.max = max
        }
    }

    public struct Total: Sendable, Equatable {
        public var value: Double
        /// The source credited with the most.
        public var source: HealthSource?
        /// Samples that were credited with anything.
        public var samples: Int
    }

    public static func total(_ samples: [Sample], priority: HealthSourcePriority) -> Total {
        let bySource = Dictionary(grouping: samples, by: \.source)
        let sources = bySource.keys.sorted(by: priority.precedes)
        var covered = IntervalUnion()
        var total = 0.0
        var credits: [HealthSource: Double] = [:]
        var counted = 0
        for source in sources {
            let own = bySource[source] ?? []
            for sample in own {
                let share: Double
                if sample.endSeconds > sample.startSeconds {
                    let uncovered = sample.endSeconds - sample.startSeconds - covered.overlap(sample.startSeconds, sample.endSeconds)
                    share = Double(uncovered) / Double(sample.endSeconds - sample.startSeconds)
                } else {
                    // An instant counts unless a higher source was recording across it.
                    share = covered.contains(sample.startSeconds) ? 0 : 1
                }
                guard share > 0 else { continue }
                total += sample.value * share
                credits[source, default: 0] += sample.value * share
                counted += 1
            }
            // This source's own samples never discount each other; lower sources meet them all.
            for sample in own where sample.endSeconds > sample.startSeconds {
                covered.insert(sample.startSeconds, sample.endSeconds)
            }
        }
        let top = credits.max { lhs, rhs in lhs.value != rhs.value ? lhs.value < rhs.value : priority.precedes(rhs.key, lhs.key) }
        return Total(value: total, source: top?.key, samples: counted)
    }
}

/// A set of half-open intervals [start, end), kept merged and sorted.
struct IntervalUnion: Sendable, Equatable {
    private(set) var intervals: [(start: Int64, end: Int64)] = []

    static func == (lhs: IntervalUnion, rhs: IntervalUnion) -> Bool {
        lhs.intervals.map(\.start) == rhs.intervals.map(\.start) && lhs.intervals.map(\.end) == rhs.intervals.map(\.end)
    }

    init() {}

    init(_ intervals: [(Int64, Int64)]) {
        for (start, end) in intervals { insert(start, end) }
    }

    mutating func insert(_ start: Int64, _ end: Int64) {
        guard end > start else { return }
        var newStart = start, newEnd = end
        var kept: [(start: Int64, end: Int64)] = []
        kept.reserveCapacity(intervals.count + 1)
        var placed = false
        for interval in intervals {
            if interval.end < newStart {
                kept.append(interval)
            } else if interval.start > newEnd {
                if !placed { kept.append((newStart, newEnd)); placed = true }
                kept.append(interval)
            } else {
                newStart = min(newStart, interval.start)
                newEnd = max(newEnd, interval.end)
            }
        }
        if !placed { kept.append((newStart, newEnd)) }
        intervals = kept
    }

    /// Seconds of [start, end) inside the union.
    func overlap(_ start: Int64, _ end: Int64) -> Int64 {
        var total: Int64 = 0
        var index = firstIndex(endingAfter: start)
        while index < intervals.count, intervals[index].start < end {
            total += min(end, intervals[index].end) - max(start, intervals[index].start)
            index += 1
        }
        return total
    }

    func contains(_ instant: Int64) -> Bool {
        let index = firstIndex(endingAfter: instant)
        return index < intervals.count && intervals[index].start <= instant
    }

    var length: Int64 { intervals.reduce(0) { $0 + $1.end - $1.start } }

    /// The first interval whose end is after `instant` (binary search).
    private func firstIndex(endingAfter instant: Int64) -> Int {
        var low = 0, high = intervals.count
        while low < high {
            let mid = (low + high) / 2
            if intervals[mid].end <= instant { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
