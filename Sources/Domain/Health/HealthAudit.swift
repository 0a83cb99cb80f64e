import Foundation

/// The data-integrity audit's rules (the auditor of the fifth seed, on the server). Each type
/// of finding has one rule here; the projector gathers the figures and keeps the findings.
public enum HealthAudit {
    public enum FindingType: String, CaseIterable, Codable, Sendable {
        case duplicates
        case historicalInsertion = "historical_insertion"
        case gap
        case sourceDivergence = "source_divergence"
        case massDeletion = "mass_deletion"

        public var severity: Severity {
            switch self {
            case .duplicates, .gap: .info
            case .historicalInsertion, .sourceDivergence: .warning
            case .massDeletion: .critical
            }
        }
    }

    public enum Severity: String, CaseIterable, Codable, Sendable {
        case info, warning, critical

        /// The design system's colour for it.
        public var colorToken: String {
            switch self {
            case .info: "ds.semantic.neutral"
            case .warning: "ds.semantic.warning"
            case .critical: "ds.semantic.negative"
            }
        }
    }

    /// A finding's lifecycle: open until the user acknowledges it or its condition clears.
    public enum Status: String, CaseIterable, Codable, Sendable {
        case open, acknowledged, resolved
    }

    /// The overall state: critical with any open critical finding, warning with any open
    /// warning, else healthy (info findings and acknowledged ones do not raise it).
    public enum State: String, Sendable {
        case healthy, warning, critical

        public var colorToken: String {
            switch self {
            case .healthy: RecoveryScore.Status.good.colorToken
            case .warning: RecoveryScore.Status.fair.colorToken
            case .critical: RecoveryScore.Status.poor.colorToken
            }
        }

        public static func of(openSeverities: [Severity]) -> State {
            openSeverities.contains(.critical) ? .critical : openSeverities.contains(.warning) ? .warning : .healthy
        }
    }

    // MARK: duplicates

    /// More than 20 % of a batch's items were already stored.
    public static func tooManyDuplicates(received: Int, duplicates: Int) -> Bool {
        received > 0 && Double(duplicates) > 0.20 * Double(received)
    }

    // MARK: historical_insertion

    /// Seven days, in seconds: a sample that ended longer ago than this when it arrived is late.
    public static let lateAfterSeconds: Int64 = 7 * 86_400

    public static func arrivedLate(receivedAt: Int64, end: Int64) -> Bool {
        receivedAt - end > lateAfterSeconds
    }

    // MARK: mass_deletion

    /// Deletions in one request removed more than 10 % of a metric's samples on dates older
    /// than 7 days (of what those dates held before).
    public static func massDeletion(removed: Int, storedBefore: Int) -> Bool {
        storedBefore > 0 && Double(removed) > 0.10 * Double(storedBefore)
    }

    /// A date more than 7 days before the user's logical today when the deletion arrived.
    public static func isOld(_ date: LocalDate, today: LocalDate) -> Bool {
        date < today.adding(days: -7)
    }

    // MARK: gap

    public static let gapLookback = 30
    /// 80 % of the 30 days before.
    public static let gapUsualDays = 24

    /// Dates in `range` (days since 1970) without data for a metric the user had on at least
    /// 24 of the 30 days before. `present` holds the dates with data.
    public static func gaps(present: Set<Int>, in range: ClosedRange<Int>) -> [Int] {
        range.filter { day in
            !present.contains(day) && (1...gapLookback).filter { present.contains(day - $0) }.count >= gapUsualDays
        }
    }

    // MARK: source_divergence

    public static let divergenceWindow = 7
    public static let divergenceDays = 3

    /// What two sources counted over the time both covered: each sample credited with its
    /// value × the share of its duration inside that time. Nil when they never overlap.
    public static func overlap(_ a: [CumulativeCredit.Sample], _ b: [CumulativeCredit.Sample]) -> (a: Double, b: Double, seconds: Int64)? {
        let shared = intersect(union(a), union(b))
        let seconds = shared.reduce(Int64(0)) { $0 + ($1.1 - $1.0) }
        guard seconds > 0 else { return nil }
        func credit(_ samples: [CumulativeCredit.Sample]) -> Double {
            samples.reduce(0) { total, sample in
                let duration = sample.endSeconds - sample.startSeconds
                guard duration > 0 else { return total }
                let inside = shared.reduce(Int64(0)) { $0 + max(0, min($1.1, sample.endSeconds) - max($1.0, sample.startSeconds)) }
                return total + sample.value * Double(inside) / Double(duration)
            }
        }
        return (credit(a), credit(b), seconds)
    }

    /// More than 25 % apart (of the larger).
    public static func diverges(_ a: Double, _ b: Double) -> Bool {
        let larger = max(a, b)
        return larger > 0 && abs(a - b) > 0.25 * larger
    }

    static func union(_ samples: [CumulativeCredit.Sample]) -> [(Int64, Int64)] {
        let sorted = samples.filter { $0.endSeconds > $0.startSeconds }.map { ($0.startSeconds, $0.endSeconds) }.sorted { $0.0 < $1.0 }
        var merged: [(Int64, Int64)] = []
        for interval in sorted {
            if let last = merged.last, interval.0 <= last.1 {
                merged[merged.count - 1].1 = max(last.1, interval.1)
            } else {
                merged.append(interval)
            }
        }
        return merged
    }

    static func intersect(_ a: [(Int64, Int64)], _ b: [(Int64, Int64)]) -> [(Int64, Int64)] {
        var (i, j, result) = (0, 0, [(Int64, Int64)]())
        while i < a.count, j < b.count {
            let start = max(a[i].0, b[j].0), end = min(a[i].1, b[j].1)
            if start < end { result.append((start, end)) }
            if a[i].1 < b[j].1 { i += 1 } else { j += 1 }
        }
        return result
    }

    // MARK: words

    /// A finding's one-line summary in `language`, from its evidence.
    public static func summary(_ type: FindingType, metric: String?, evidence: [String: Any], language: Language) -> String {
        func number(_ key: String) -> String { LabelFormat.integer((evidence[key] as? NSNumber)?.doubleValue ?? 0, language) }
        let metricName = metric.map { LabelCatalogue.text("metric.\($0)", language) } ?? ""
        switch type {
        case .duplicates:
            return LabelFormat.fill("audit.summary.duplicates", language, [
                "percent": number("percent"), "received": number("received"), "format": evidence["format"] as? String ?? ""])
        case .historicalInsertion:
            return LabelFormat.fill("audit.summary.historical_insertion", language, [
                "count": number("count"), "days": LabelFormat.days((evidence["max_days_late"] as? NSNumber)?.intValue ?? 0, language)])
        case .gap:
            return LabelFormat.fill("audit.summary.gap", language, ["metric": metricName])
        case .sourceDivergence:
            return LabelFormat.fill("audit.summary.source_divergence", language, [
                "source_a": evidence["source_a"] as? String ?? "", "source_b": evidence["source_b"] as? String ?? "",
                "metric": metricName, "count": number("diverging_days")])
        case .massDeletion:
            return LabelFormat.fill("audit.summary.mass_deletion", language, [
                "count": number("removed"), "before": number("stored_before"), "metric": metricName])
        }
    }
}
