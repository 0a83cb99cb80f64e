// @testable: the DTOs are internal.
@testable import API
import Domain
import Foundation
import Testing

extension OpenAPITests {
    /// A sample of the import's answer: every count, a reason for skipping, a failure and a note.
    static func importSamples() throws -> [Sample] {
        var report = ImportReport(dryRun: false)
        report.record(.imported, at: ImportPlace(line: 2))
        report.record(.duplicate, at: ImportPlace(line: 3))
        report.record(.skipped("device: its key is never exported; pair the device again"), at: ImportPlace(line: 4))
        report.record(.failed("habit_id: no habit of this file has this id"), at: ImportPlace(line: 5))
        report.note("the file ends without its end line: it may have been cut short")
        return [
            try sample("Import report", "POST /api/v1/import", "200", full: true, ImportReportDTO(report)),
            try sample("Import report (dry run, empty)", "POST /api/v1/import", "200", full: false, ImportReportDTO(ImportReport(dryRun: true))),
        ]
    }
}
