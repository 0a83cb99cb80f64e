import Domain
import Foundation

// An import's health commands, through `HealthService`: records as ingestions of up to 5,000
// (idempotent by themselves: a sample already stored, by uuid or by metric, times and source,
// is a duplicate), settings, manual values and check-ins one by one.
extension ImportService {
    /// The format an import's ingestions name (the audit's evidence shows it).
    static let healthFormat = "lifelog_export"

    /// Stores `records` as one ingestion and counts each: inserted or updated ones imported,
    /// those stored before duplicates, refused ones failed with their reason. A dry run decides
    /// the batch without storing it.
    func ingest(_ owner: UUID, _ records: [(ImportPlace, LifelogImportLine)], dryRun: Bool, into report: inout ImportReport) async throws {
        var intake = HealthIntake()
        for (_, line) in records {
            switch line {
            case .healthSample(let sample): intake.samples.append(sample)
            case .sleepSegment(let segment): intake.sleep.append(segment)
            case .workout(let workout): intake.workouts.append(workout)
            default: break
            }
        }
        let context = CommandContext(userId: owner)
        let (stored, errors): (Int, [HealthItemError])
        if dryRun {
            let decided = try await health.decideAhead(context, deviceId: nil, intake, format: Self.healthFormat, after: nil)
            let tally = HealthIngestDecider.tally(decided.ahead.state, decided.batch.command)
            (stored, errors) = (tally.inserted + tally.updated, decided.batch.checked.errors)
        } else {
            let answer = try await health.ingest(context, deviceId: nil, intake, format: Self.healthFormat)
            (stored, errors) = (answer.inserted + answer.updated, answer.errors)
        }
        // An error's index is the line its item came from (`line[N]`); an item with several is one failure.
        var refused: [Int: String] = [:]
        for error in errors { refused[error.index] = refused[error.index].map { "\($0); \(error.message)" } ?? "\(Self.field(error.field)): \(error.message)" }
        // The answer counts, it does not say which item was new: the first `stored` of the good ones are counted as imported.
        var counted = 0
        for (place, _) in records {
            if let reason = refused[place.line] {
                report.record(.failed(reason), at: place)
            } else if counted < stored {
                counted += 1
                report.record(.imported, at: place)
            } else {
                report.record(.duplicate, at: place)
            }
        }
    }

    /// `line[12].end` → `end`.
    static func field(_ path: String) -> String {
        guard let close = path.lastIndex(of: "]") else { return path }
        let rest = path[path.index(after: close)...]
        return rest.hasPrefix(".") ? String(rest.dropFirst()) : "record"
    }

    func sourcePriorityStep(_ owner: UUID, key: String, _ order: [HealthSourceKind]) -> ImportStep {
        let health = self.health
        return ImportStep(key) { context in
            _ = try await health.setPriority(context, order)
            return nil
        }
    }

    func manualStep(_ owner: UUID, key: String, metric: HealthMetric, date: LocalDate, value: Double) -> ImportStep {
        let health = self.health
        return ImportStep(key) { context in
            _ = try await health.setManual(context, try ManualValue.read(metric: metric, date: date, value: value, unit: nil).get())
            return nil
        }
    }

    func checkInStep(_ owner: UUID, key: String, date: LocalDate, feeling: Int, note: String?) -> ImportStep {
        let health = self.health
        return ImportStep(key) { context in
            _ = try await health.checkIn(context, date: date, feeling: feeling, note: note)
            return nil
        }
    }
}
