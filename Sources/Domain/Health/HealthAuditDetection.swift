import Foundation

/// What the audit finds, decided here from figures the projector reads (`HealthAuditProjector`
/// only reads the figures and stores the findings): a request's findings, gaps over spans of
/// days, and sources that disagree. Pure, so each rule is tested without a database.
extension HealthAudit {
    /// A finding of one user; `detectedAt` in seconds since 1970.
    public struct Finding: Sendable, Equatable {
        public var key: String
        public var type: FindingType
        public var metric: String?
        public var from: LocalDate
        public var to: LocalDate
        public var evidence: [String: Evidence]
        public var detectedAt: Int64
        public init(key: String, type: FindingType, metric: String?, from: LocalDate, to: LocalDate, evidence: [String: Evidence], detectedAt: Int64) {
            self.key = key
            self.type = type
            self.metric = metric
            self.from = from
            self.to = to
            self.evidence = evidence
            self.detectedAt = detectedAt
        }
    }

    /// Evidence values: numbers, words, and lists of days.
    public enum Evidence: Sendable, Equatable, Encodable {
        case number(Double)
        case text(String)
        case list([[String: Evidence]])
        case texts([String])

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            case .list(let value): try container.encode(value)
            case .texts(let value): try container.encode(value)
            }
        }
    }

    /// A condition on a date is observable once the date is over: its detection time, the same
    /// in a rebuild (which reads the whole log at once) as when the auditor followed the log.
    public static func endOf(_ date: LocalDate) -> Int64 { Int64(date.daysSinceEpoch + 1) * 86_400 }

    // MARK: A request's findings

    /// What one storing request carried, added up: its intake (format, received, duplicates),
    /// when it arrived, the dates of its items, and those that arrived late.
    public struct RequestFigures: Sendable, Equatable {
        public var intake: (format: String, received: Int, duplicates: Int)?
        public var receivedAt: Int64
        public var first: LocalDate?
        public var last: LocalDate?
        public var late: Int
        public var lateFirst: LocalDate?
        public var lateLast: LocalDate?
        /// The latest item's delay, in seconds.
        public var worst: Int64
        public init(intake: (format: String, received: Int, duplicates: Int)?, receivedAt: Int64, first: LocalDate?, last: LocalDate?,
                    late: Int, lateFirst: LocalDate?, lateLast: LocalDate?, worst: Int64) {
            self.intake = intake
            self.receivedAt = receivedAt
            self.first = first
            self.last = last
            self.late = late
            self.lateFirst = lateFirst
            self.lateLast = lateLast
            self.worst = worst
        }
        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.intake?.format == rhs.intake?.format && lhs.intake?.received == rhs.intake?.received
                && lhs.intake?.duplicates == rhs.intake?.duplicates && lhs.receivedAt == rhs.receivedAt && lhs.first == rhs.first
                && lhs.last == rhs.last && lhs.late == rhs.late && lhs.lateFirst == rhs.lateFirst && lhs.lateLast == rhs.lateLast
                && lhs.worst == rhs.worst
        }
    }

    /// Too many duplicates and late samples: at most one finding of each per request, keyed by
    /// its transaction.
    public static func requestFindings(transaction: String, _ request: RequestFigures) -> [Finding] {
        var findings: [Finding] = []
        if let (format, received, duplicates) = request.intake, tooManyDuplicates(received: received, duplicates: duplicates),
           let first = request.first, let last = request.last {
            findings.append(Finding(
                key: "duplicates|\(transaction)", type: .duplicates, metric: nil, from: first, to: last,
                evidence: ["received": .number(Double(received)), "duplicates": .number(Double(duplicates)),
                           "percent": .number((100 * Double(duplicates) / Double(received)).rounded()), "format": .text(format)],
                detectedAt: request.receivedAt))
        }
        if request.late > 0, let first = request.lateFirst, let last = request.lateLast {
            findings.append(Finding(
                key: "historical_insertion|\(transaction)", type: .historicalInsertion, metric: nil, from: first, to: last,
                evidence: ["count": .number(Double(request.late)), "max_days_late": .number(Double(request.worst / 86_400))],
                detectedAt: request.receivedAt))
        }
        return findings
    }

    /// One finding per metric whose old samples one deletion request cut by more than 10 %.
    public static func massDeletions(_ deleted: HealthEvent.RecordsDeleted, transaction: UInt64) -> [Finding] {
        guard let receivedAt = deleted.receivedAt, let today = deleted.today else { return [] }
        let old = deleted.records.filter { $0.kind == .quantity && isOld($0.date, today: today) }
        let before = Dictionary((deleted.storedBefore ?? []).map { ("\($0.name)|\($0.date)", $0.count) }, uniquingKeysWith: max)
        return Dictionary(grouping: old, by: \.name).sorted { $0.key < $1.key }.compactMap { name, removed in
            let dates = Set(removed.map(\.date)).sorted()
            let storedBefore = dates.reduce(0) { $0 + (before["\(name)|\($1)"] ?? 0) }
            guard massDeletion(removed: removed.count, storedBefore: storedBefore), let first = dates.first, let last = dates.last else { return nil }
            return Finding(
                key: "mass_deletion|\(transaction)|\(name)", type: .massDeletion, metric: name, from: first, to: last,
                evidence: ["removed": .number(Double(removed.count)), "stored_before": .number(Double(storedBefore)),
                           "percent": .number((100 * Double(removed.count) / Double(storedBefore)).rounded()),
                           "dates": .texts(dates.map(\.description))],
                detectedAt: receivedAt)
        }
    }

    // MARK: Gaps

    /// Where a user's gaps are evaluated again, per metric (days since 1970, merged): for each
    /// touched metric, its touched dates and the 30 after them (whose lookback holds them); and
    /// for every metric the user had recently, the 31 days before `latest` (a day goes missing
    /// by data arriving after it, not by data for it). Only closed days count: up to the day
    /// before the user's newest data, `latest`.
    public static func gapSpans(touched: [String: [LocalDate]], recentMetrics: [String], latest: LocalDate) -> [String: [ClosedRange<Int>]] {
        let closed = latest.daysSinceEpoch - 1
        var ranges: [String: [ClosedRange<Int>]] = [:]
        for (metric, dates) in touched {
            guard let first = dates.min(), let last = dates.max() else { continue }
            let high = min(last.daysSinceEpoch + gapLookback, closed)
            if first.daysSinceEpoch <= high { ranges[metric, default: []].append(first.daysSinceEpoch...high) }
        }
        for metric in recentMetrics { ranges[metric, default: []].append((closed - gapLookback)...closed) }
        return ranges.mapValues(DaySpans.merged)
    }

    /// The gaps of `metric` in `span`, given the days (since 1970) with data from `gapLookback`
    /// before it: found ones, and the keys of the days in the span that are not (or no longer) gaps.
    public static func gapFindings(metric: String, present: Set<Int>, in span: ClosedRange<Int>) -> (found: [Finding], cleared: [String]) {
        let gaps = Set(gaps(present: present, in: span))
        let found = gaps.sorted().map { day in
            let date = LocalDate(daysSinceEpoch: day)
            let usual = (1...gapLookback).filter { present.contains(day - $0) }.count
            return Finding(key: gapKey(metric, date), type: .gap, metric: metric, from: date, to: date,
                           evidence: ["days_with_data": .number(Double(usual)), "of_days": .number(Double(gapLookback))],
                           detectedAt: endOf(date))
        }
        let cleared = span.filter { !gaps.contains($0) }.map { gapKey(metric, LocalDate(daysSinceEpoch: $0)) }
        return (found, cleared)
    }

    static func gapKey(_ metric: String, _ date: LocalDate) -> String { "gap|\(metric)|\(date)" }

    // MARK: Sources that disagree

    /// What two sources counted over their shared time on one day.
    public struct PairOverlap: Sendable, Equatable {
        public var sourceA: String
        public var sourceB: String
        public var a: Double
        public var b: Double
        public var seconds: Int64
    }

    /// Every pair of sources (by name, in order) that overlapped on a day, with what each counted.
    public static func overlaps(bySource: [String: [CumulativeCredit.Sample]]) -> [PairOverlap] {
        let sources = bySource.keys.sorted()
        var found: [PairOverlap] = []
        for (i, a) in sources.enumerated() {
            for b in sources[(i + 1)...] {
                guard let shared = overlap(bySource[a] ?? [], bySource[b] ?? []) else { continue }
                found.append(PairOverlap(sourceA: a, sourceB: b, a: shared.a, b: shared.b, seconds: shared.seconds))
            }
        }
        return found
    }

    /// A stored overlap of one day, as the divergence rule reads it.
    public struct DayOverlap: Sendable, Equatable {
        public var date: LocalDate
        public var sourceA: String
        public var sourceB: String
        public var a: Double
        public var b: Double
        public init(date: LocalDate, sourceA: String, sourceB: String, a: Double, b: Double) {
            self.date = date
            self.sourceA = sourceA
            self.sourceB = sourceB
            self.a = a
            self.b = b
        }
    }

    /// The pairs of `metric`'s sources that disagree on at least `divergenceDays` of the days
    /// given (the metric's last `divergenceWindow`), one finding per pair; every other pair no
    /// longer disagrees often enough.
    public static func divergenceFindings(metric: String, _ days: [DayOverlap]) -> [Finding] {
        var byPair: [String: [DayOverlap]] = [:]
        for day in days.sorted(by: { $0.date < $1.date }) where diverges(day.a, day.b) {
            byPair["source_divergence|\(metric)|\(day.sourceA)|\(day.sourceB)", default: []].append(day)
        }
        return byPair.sorted(by: { $0.key < $1.key }).compactMap { key, days in
            guard days.count >= divergenceDays, let first = days.first, let last = days.last else { return nil }
            let list: [[String: Evidence]] = days.map { day in
                ["date": .text(day.date.description), "a": .number((day.a * 10).rounded() / 10), "b": .number((day.b * 10).rounded() / 10),
                 "percent": .number((100 * abs(day.a - day.b) / max(day.a, day.b)).rounded())]
            }
            return Finding(key: key, type: .sourceDivergence, metric: metric, from: first.date, to: last.date,
                           evidence: ["source_a": .text(first.sourceA), "source_b": .text(first.sourceB), "diverging_days": .number(Double(days.count)),
                                      "days": .list(list)],
                           detectedAt: endOf(last.date))
        }
    }
}
