import API
import Core
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import Domain
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct OpenAPITests {
    /// Paths and methods of the document, read from its `paths:` section.
    static func documented(_ yaml: String) -> Set<String> {
        var result: Set<String> = []
        var inPaths = false
        var current: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if let current, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "post", "put", "patch", "delete"].contains(String(method)) {
                    result.insert("\(method.uppercased()) \(current)")
                }
            }
        }
        return result
    }

    @Test func theDocumentCoversEveryRegisteredRouteAndNoOther() async throws {
        try await TestDatabase.withAppClient { _, client in
            let clock = MutableClock(Date())
            let accounts = try await makeAccountService(client: client, keys: AppHarness.keys, clock: clock, logger: TestDatabase.logger)
            let routes = RouteTable()
            _ = buildRouter(AppDependencies(client: client, accounts: accounts, clock: clock,
                                            migrator: try Migrator(directory: TestDatabase.schemaDirectory)), routes: routes)
            let registered = Set(routes.all().map { route in
                // The router writes parameters as {id} or :id; the document as {id}.
                let path = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "\(route.method) /" + path.joined(separator: "/")
            })
            let app = buildApplication(AppDependencies(client: client, accounts: accounts, clock: clock,
                                                       migrator: try Migrator(directory: TestDatabase.schemaDirectory)), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                let response = try await http.call(.get, "/openapi.yaml")
                #expect(response.status == .ok)
                #expect(response.text.hasPrefix("openapi: 3.1.0"))
                let documented = Self.documented(response.text)
                #expect(registered.subtracting(documented).sorted() == [], "registered but not documented")
                #expect(documented.subtracting(registered).sorted() == [], "documented but not registered")
                #expect(registered.count > 15)
            }
        }
    }
}
