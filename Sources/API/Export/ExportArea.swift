import Core
import Domain
import Foundation
import Hummingbird
import NIOCore
import Projections

/// `GET /api/v1/export`: everything the signed-in user owns, as NDJSON (`ExportService`; the
/// format is in the README), streamed as it is read: a decade of minute-level heart rate costs
/// the server a page of rows of memory, not the whole file.
public struct ExportArea: Area {
    public static let name = "Export"
    public static let projectors: [any Projector] = []
    public static let openAPIPart = "export"
    let exports: ExportService
    let clock: any WallClock

    public init(_ context: AreaContext) {
        exports = context.services.exports
        clock = context.clock
    }

    public func register(on api: RouterGroup<AppRequestContext>) {
        let exports = self.exports, clock = self.clock
        api.group("export", context: UserRequestContext.self).get { _, context in
            let owner = context.userId
            let day = clock.now().formatted(.iso8601.year().month().day())
            return Response(status: .ok, headers: [
                .contentType: "application/x-ndjson", .contentDisposition: "attachment; filename=\"lifelog-export-\(day).ndjson\"",
                .cacheControl: "no-store",
            ], body: ResponseBody { writer in
                try await exports.export(owner) { chunk in try await writer.write(ByteBuffer(string: chunk)) }
                try await writer.finish(nil)
            })
        }
    }
}
