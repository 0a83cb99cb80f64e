import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What the HTTP benchmarks share: calls to the running server, bounded parallel seeding, and
/// an open-loop run at a fixed rate (each request is sent on its schedule, whatever the
/// previous ones are doing, and its latency counts from that schedule).
struct HTTPDriver: Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let baseURL: String
    let client: HTTPClient

    /// Runs `body` with a client whose pool never queues requests itself.
    static func with(baseURL: String, _ body: (HTTPDriver) async throws -> Void) async throws {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(30)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(HTTPDriver(baseURL: baseURL, client: client))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    func call(_ method: HTTPMethod, _ path: String, token: String?, json: String?) async throws -> (UInt, String) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
        return (response.status.code, String(buffer: body))
    }

    /// A created resource's id, or a failure that says what the server answered.
    func create(_ path: String, token: String, json: String) async throws -> String {
        let (code, body) = try await call(.POST, path, token: token, json: json)
        guard (200..<300).contains(code), let id = field(body, "id") else { throw Failure(description: "POST \(path) failed: \(code) \(body)") }
        return id
    }

    func field(_ json: String, _ key: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?[key] as? String
    }

    static let password = "synthetic benchmark password"

    func register(email: String = "bench-\(UUID().uuidString.prefix(8).lowercased())@example.com", timezone: String = "Europe/Belgrade") async throws -> String {
        let (status, body) = try await call(.POST, "/api/v1/auth/register", token: nil,
            json: #"{"email":"\#(email)","password":"\#(Self.password)","name":"Bench","timezone":"\#(timezone)"}"#)
        guard status == 201, let token = field(body, "access_token") else { throw Failure(description: "register failed: \(status) \(body)") }
        return token
    }

    /// Runs `work` for items with `width` in flight.
    func parallel(_ count: Int, width: Int, _ work: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(width, count) { let i = next; group.addTask { try await work(i) }; next += 1 }
            while try await group.next() != nil, next < count { let i = next; group.addTask { try await work(i) }; next += 1 }
            try await group.waitForAll()
        }
    }

    /// `rate` requests a second for `duration` seconds, after 50 warm-up requests; prints p50,
    /// p99, max and the non-2xx count. `request(n)` gives the n-th request (a new body per POST).
    func openLoop(_ name: String, rate: Int, duration: Int, token: String,
                  _ request: @escaping @Sendable (Int) -> (HTTPMethod, String, String?)) async throws {
        for n in 0..<50 {
            let (method, path, json) = request(-1 - n)
            _ = try await call(method, path, token: token, json: json)
        }
        let total = rate * duration
        let interval = Duration.seconds(1) / rate
        let clock = ContinuousClock()
        let begin = clock.now
        let results = try await withThrowingTaskGroup(of: (Double, UInt).self) { group in
            for n in 0..<total {
                let scheduled = begin.advanced(by: interval * n)
                try await clock.sleep(until: scheduled)
                group.addTask {
                    let (method, path, json) = request(n)
                    // A request the load tool itself gives up on (its pool waited too long) counts
                    // as a failure at the time it gave up, and the run goes on.
                    let code = (try? await call(method, path, token: token, json: json).0) ?? 0
                    return (seconds(clock.now - scheduled) * 1000, code)
                }
            }
            return try await group.reduce(into: [(Double, UInt)]()) { $0.append($1) }
        }
        let latencies = results.map(\.0).sorted()
        let errors = results.filter { !(200..<300).contains($0.1) }.count
        let unanswered = results.filter { $0.1 == 0 }.count
        print(String(format: "http %@: %d requests at %d/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d non-2xx (%d unanswered)",
                     name, total, rate, percentile(latencies, 0.5), percentile(latencies, 0.99), latencies.last ?? 0, errors, unanswered))
    }
}
