import API
import Core
import Domain
import EventStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import Projections

/// An application on its own database, driven through HTTP by HummingbirdTesting.
public struct AppHarness: Sendable {
    /// The whole suite loads the machine far past what a server sees: a request can wait more
    /// than the 2 s the database wait allows without the database being away. Tests of the wait
    /// itself set their own limit.
    public static let edge = EdgeLimits(databaseWait: .seconds(30), readWait: .seconds(20))

    public let database: TestDatabase
    public let client: PostgresClient
    public let accounts: AccountService
    public let clock: MutableClock
    /// The application's services (`AppDependencies.services`): a job or a check the test builds uses these.
    public let services: Services
    public static let keys = [SigningKey(kid: "test-1", secret: "test-secret-0123456789-0123456789-abcdef")]
    /// The owners' data keys as the application's store holds them (derived from `keys`): a
    /// store, runner or rebuilder a test builds beside the application opens the same payloads.
    // swiftlint:disable:next force_try
    public static let keyring = try! OwnerKeyring(secrets: keys.map(\.secret))

    /// Runs `body` with a fresh database and an application built the way `serve` builds it.
    /// With `asyncProjectors`, the async projectors follow the log while `body` runs, as in
    /// `serve` (polling every 20 ms, no listener), so reads with `min_position` see their writes.
    public static func with(
        keys: [SigningKey] = AppHarness.keys, maxBodyBytes: Int = 1_048_576, maxIngestBytes: Int = 33_554_432, now: Date = Date(),
        asyncProjectors: Bool = false, allowPrivateWebhooks: Bool = false, registrationsPerAddress: Int = 1_000,
        _ body: @Sendable (AppHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await TestDatabase.withAppClient { database, client in
            let clock = MutableClock(now)
            let migrator = try Migrator(directory: TestDatabase.schemaDirectory)
            // As `serve` does: appends take connections of their own first (a few: suites run in parallel).
            let appendConnections = AppendConnections(
                configuration: try database.ownerURL.appendConnectionConfiguration(role: "lifelog_app"), capacity: 3, logger: TestDatabase.logger)
            let dependencies = try await AppDependencies(
                client: client, keys: keys, clock: clock, migrator: migrator, logger: TestDatabase.logger, maxBodyBytes: maxBodyBytes,
                maxIngestBytes: maxIngestBytes, allowPrivateWebhooks: allowPrivateWebhooks, edge: AppHarness.edge,
                registrationsPerAddress: registrationsPerAddress, appendConnections: appendConnections)
            let app = buildApplication(dependencies)
            let harness = AppHarness(database: database, client: client, accounts: dependencies.accounts, clock: clock, services: dependencies.services)
            let runners = dependencies.projectors.filter { $0.mode == .async }.map {
                AsyncProjectorRunner(projector: $0, client: client, keyring: AppHarness.keyring, batchSize: $0.batchSize, logger: TestDatabase.logger)
            }
            let daemon = AsyncProjectionDaemon(runners: runners, listener: nil, pollInterval: .milliseconds(20), logger: TestDatabase.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await appendConnections.run() }
                if asyncProjectors { group.addTask { await daemon.run() } }
                defer { group.cancelAll() }
                try await app.test(.router) { http in try await body(harness, http) }
            }
        }
    }
}

extension AppDependencies {
    /// What `serve` builds, on a test database, with the test signing keys.
    public static func forTests(
        client: PostgresClient, clock: any WallClock = MutableClock(Date()), maxBodyBytes: Int = 1_048_576,
        readinessTimeout: Duration = .seconds(2), edge: EdgeLimits = AppHarness.edge,
        // Tests register many users from the one test address; the throttle's own test sets its limit.
        registrationsPerAddress: Int = 1_000, logger: Logger = TestDatabase.logger, changeFeedPoll: Duration = .seconds(1),
        hasher: PasswordHasher = PasswordHasher()
    ) async throws -> AppDependencies {
        try await AppDependencies(
            client: client, keys: AppHarness.keys, clock: clock, migrator: try Migrator(directory: TestDatabase.schemaDirectory), logger: logger,
            hasher: hasher,
            maxBodyBytes: maxBodyBytes, readinessTimeout: readinessTimeout, edge: edge, registrationsPerAddress: registrationsPerAddress,
            changeFeedPoll: changeFeedPoll)
    }
}

/// Small helpers for JSON over the test client.
public struct JSONResponse: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let text: String

    public init(status: HTTPResponse.Status, headers: HTTPFields, text: String) {
        self.status = status
        self.headers = headers
        self.text = text
    }

    public var object: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]) ?? [:]
    }

    public func string(_ key: String) -> String? { object[key] as? String }

    /// The fields a problem's `errors` name.
    public var fieldErrors: Set<String> {
        Set((object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
    }
}

extension TestClientProtocol {
    @discardableResult
    public func call(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, headers: HTTPFields = [:], json: String? = nil
    ) async throws -> JSONResponse {
        var fields = headers
        if let token { fields[.authorization] = "Bearer \(token)" }
        if json != nil { fields[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: fields, body: json.map { ByteBuffer(string: $0) }) { response in
            JSONResponse(status: response.status, headers: response.headers, text: String(buffer: response.body))
        }
    }

    /// Registers a user and returns the register answer (tokens and user).
    public func register(_ email: String, password: String = "correct horse battery", timezone: String = "Europe/Belgrade") async throws -> JSONResponse {
        try await call(.post, "/api/v1/auth/register",
                       json: #"{"email":"\#(email)","password":"\#(password)","name":"Test User","timezone":"\#(timezone)"}"#)
    }
}

extension AppHarness {
    /// Registers a user through the API and answers their id (nil when that failed): whom a
    /// property test's commands act for.
    public func registeredUser(_ http: any TestClientProtocol, _ email: String) async throws -> UUID? {
        guard let token = try await http.register(email).string("access_token") else { return nil }
        return UUID(uuidString: try await http.call(.get, "/api/v1/me", token: token).string("id") ?? "")
    }

    /// Rebuilds `projector`'s read model from the log as `lifelog projections rebuild` does (as
    /// the owner role: the rebuild swaps tables).
    public func rebuild(_ projector: any Projector) async throws {
        _ = try await PostgresClient.withRunning(database.ownerConfiguration(), logger: TestDatabase.logger) { ownerClient in
            try await ProjectionRebuilder(client: ownerClient, keyring: AppHarness.keyring, logger: TestDatabase.logger).rebuild(projector)
        }
    }

    /// The one integer a counting query answers (`SELECT count(*) …`).
    public func count(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await client.query(query).decode(Int.self) { return value }
        return 0
    }
}
