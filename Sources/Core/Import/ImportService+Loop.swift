import Domain
import Foundation

extension ImportService {
    /// Imports Loop Habit Tracker's CSV export (`LoopHabits`): each habit with its schedule,
    /// its checked days as logs (a numeric habit's values), runs of skipped days as freezes;
    /// streaks follow from those, as for any habit. First every habit, then their entries (a
    /// habit's in date order, habits side by side), then archiving. A habit is known by its
    /// name: a later export of the same Loop adds only what is new.
    public func loop(into owner: UUID, _ export: LoopHabits.Export, dryRun: Bool,
                     progress: (@Sendable (ImportReport) -> Void)? = nil) async throws -> ImportReport {
        let rows: [Result<LoopHabits.HabitRow, ImportFailure>]
        do { rows = try LoopHabits.habits(export.habits) } catch { throw ImportFileError(error.reason) }
        let today = try await today(owner)
        var report = ImportReport(dryRun: dryRun)
        var habits: [ImportItem] = [], entries: [ImportItem] = [], archives: [ImportItem] = []
        var names: Set<String> = []
        for result in rows {
            let row: LoopHabits.HabitRow
            switch result {
            case .failure(let failure): report.record(.failed(failure.reason), at: failure.place); continue
            case .success(let found): row = found
            }
            // Two habits of one name are two habits.
            let habitKey = "loop:habit:\(row.name)" + (names.insert(row.name).inserted ? "" : "#\(row.position)")
            var found: [LoopHabits.Entry] = []
            if let folder = LoopHabits.folder(of: row.position, among: Array(export.checkmarks.keys)), let text = export.checkmarks[folder] {
                do {
                    for entry in try LoopHabits.entries(text, file: "\(folder)/Checkmarks.csv") {
                        switch entry {
                        case .success(let entry): found.append(entry)
                        case .failure(let failure): report.record(.failed(failure.reason), at: failure.place)
                        }
                    }
                } catch {
                    report.note("\(folder)/Checkmarks.csv: \(error.reason)")
                }
            } else {
                report.note("\(row.name): no folder \(String(format: "%03d", row.position)) … with a Checkmarks.csv: the habit is imported without its history")
            }
            let plan = LoopHabits.plan(row, entries: found, today: today)
            plan.notes.forEach { report.note($0) }
            for (place, outcome) in plan.others { report.record(outcome, at: place) }
            guard let definition = plan.definition else {
                report.record(plan.refusal ?? .failed("not imported"), at: row.place)
                continue
            }
            // Created one after another, in Loop's order (a habit list is in the order habits were created).
            habits.append(ImportItem(place: row.place, lane: "habits", steps: habitSteps(owner, habitKey: habitKey, definition, later: [])))
            for log in plan.logs {
                entries.append(ImportItem(place: log.place, lane: habitKey, steps: [logStep(owner, habitKey: habitKey, date: log.date, value: log.value)]))
            }
            for freeze in plan.freezes {
                let key = "\(habitKey)/freeze/\(freeze.range.from)/\(freeze.range.to)"
                entries.append(ImportItem(places: freeze.places, lane: habitKey, steps: [freezeStep(owner, key: key, habitKey: habitKey, freeze.range)]))
            }
            if row.archived { archives.append(ImportItem(place: row.place, lane: habitKey, steps: [habitArchive(owner, habitKey: habitKey)])) }
        }
        try await run(owner, habits, dryRun: dryRun, into: &report, progress: progress)
        try await run(owner, entries, dryRun: dryRun, into: &report, progress: progress)
        if !dryRun { try await settle(owner, archives, notesInto: &report) }
        report.sortFailures()
        return report
    }

    /// `run`, a batch of 2,000 items at a time, telling `progress` after each.
    func run(_ owner: UUID, _ items: [ImportItem], dryRun: Bool, into report: inout ImportReport,
             progress: (@Sendable (ImportReport) -> Void)?) async throws {
        var start = 0
        while start < items.count {
            let end = min(start + 2_000, items.count)
            try await run(owner, Array(items[start..<end]), dryRun: dryRun, into: &report)
            progress?(report)
            start = end
        }
    }

    /// Runs what finishes an import (archiving): not items of the file, so not counted; what
    /// fails is noted.
    func settle(_ owner: UUID, _ items: [ImportItem], notesInto report: inout ImportReport) async throws {
        var settled = ImportReport(dryRun: false)
        try await run(owner, items, dryRun: false, into: &settled)
        for failure in settled.failures { report.note("\(failure.place): \(failure.reason)") }
    }
}

extension LoopHabits {
    /// The files of Loop's export, as read from its zip: `Habits.csv`, and each habit folder's
    /// `Checkmarks.csv` by the folder's name (`001 Meditate`).
    public struct Export: Sendable {
        public var habits: String
        public var checkmarks: [String: String]

        public init(habits: String, checkmarks: [String: String]) {
            self.habits = habits
            self.checkmarks = checkmarks
        }
    }
}
