import Hummingbird
import Synchronization

/// The registered routes, so an unknown method on a known path answers 405 with `Allow`
/// (the router alone answers 404), and so the OpenAPI document can be checked against them.
public final class RouteTable: Sendable {
    private let routes = Mutex<[(method: String, components: [Substring])]>([])

    public init() {}

    func load<Context>(from router: Router<Context>) {
        let described = router.routes.map { (method: $0.method.rawValue, components: Self.components("\($0.path)")) }
        routes.withLock { $0 = described }
    }

    /// Every registered (method, path) pair, paths as the router describes them.
    public func all() -> [(method: String, path: String)] {
        routes.withLock { $0.map { ($0.method, "/" + $0.components.joined(separator: "/")) } }
    }

    /// Methods registered for a concrete request path. Like the router, a literal segment wins
    /// over a parameter: `/devices/pairing-codes` is not `/devices/{id}`.
    func methods(matching path: String) -> [String] {
        let requested = Self.components(path)
        var candidates = routes.withLock { routes in
            routes.filter { route in
                route.components.count == requested.count
                    && zip(route.components, requested).allSatisfy { pattern, value in Self.isWildcard(pattern) || pattern == value }
            }
        }
        for index in requested.indices where candidates.contains(where: { !Self.isWildcard($0.components[index]) }) {
            candidates.removeAll { Self.isWildcard($0.components[index]) }
        }
        return candidates.map(\.method).sorted()
    }

    static func isWildcard(_ pattern: Substring) -> Bool {
        pattern.hasPrefix(":") || pattern.hasPrefix("{") || pattern == "*"
    }

    static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
