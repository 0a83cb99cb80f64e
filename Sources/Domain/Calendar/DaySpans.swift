import Foundation

/// Spans of days (days since 1970), merged where they overlap or touch: what a change to some
/// dates makes a projector compute again, without the years between two far-apart dates.
public enum DaySpans {
    public static func merged(_ spans: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var merged: [ClosedRange<Int>] = []
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, span.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                merged.append(span)
            }
        }
        return merged
    }
}
