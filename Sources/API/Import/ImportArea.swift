import Core
import Domain
import Foundation
import Hummingbird
import NIOCore
import Projections

/// `POST /api/v1/import`: a lifelog export (NDJSON, `GET /api/v1/export`'s format) into the
/// signed-in account (`ImportService`; what maps to what is in the README, "Import"). A body up
/// to the ingestion limit (`MAX_INGEST_BYTES`); a larger file goes through `lifelog import
/// lifelog`. The answer counts every line; one that could not be imported is `line N: reason`.
public struct ImportArea: Area {
    public static let name = "Import"
    public static let projectors: [any Projector] = []
    public static let openAPIPart = "import"
    static let path = "/api/v1/import"
    let imports: ImportService

    public init(_ context: AreaContext) {
        imports = ImportService(services: context.services, profiles: context.accounts.profiles)
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        let imports = self.imports
        api.group("import", context: UserRequestContext.self).post { request, context -> ImportReportDTO in
            let dryRun = try request.queryFlag("dry_run")
            var request = request
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            guard body.readableBytes > 0 else { throw Problem.badRequest("The request needs a body: a lifelog export, as NDJSON.") }
            var lines = NDJSONLines()
            var run = imports.lifelog(into: context.userId, dryRun: dryRun)
            try await run.feed(lines.feed(body.readableBytesView))
            try await run.feed(lines.finish())
            return ImportReportDTO(try await run.finish())
        }
    }
}

/// What an import did, as the API answers it (and `lifelog import` prints it).
struct ImportReportDTO: ResponseEncodable {
    struct SkipDTO: Encodable, Sendable {
        var reason: String
        var count: Int
    }

    var dryRun: Bool
    var read: Int
    var imported: Int
    var duplicates: Int
    var skipped: Int
    var failed: Int
    var skips: [SkipDTO]
    /// `line N: reason`, in file order (the first 1,000).
    var failures: [String]
    var notes: [String]

    init(_ report: ImportReport) {
        dryRun = report.dryRun
        read = report.read
        imported = report.imported
        duplicates = report.duplicates
        skipped = report.skipped
        failed = report.failed
        skips = report.skips.map { SkipDTO(reason: $0.reason, count: $0.count) }
        failures = report.failures.map(\.description)
        notes = report.notes
    }
}
