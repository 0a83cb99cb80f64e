import Foundation
import LifelogClient
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a companion app does first, through the client generated from the served document:
/// register, log in, create and log a habit, read Today, send a health batch with a device key,
/// read the briefing. Every answer is decoded by the generated types; any other answer, or a
/// value that is not what the server must have computed, ends the run with a non-zero status.
struct CheckFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(message()) }
}

func run(_ server: URL) async throws {
    let transport = URLSessionTransport()
    let anonymous = Client(serverURL: server, transport: transport)
    let email = "swift-client-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    let password = "correct horse battery staple"

    let registered = try await anonymous.register(body: .json(.init(email: email, password: password, name: "Swift client", timezone: .europeBelgrade)))
    _ = try registered.created.body.json
    let session = try await anonymous.logIn(body: .json(.init(email: email, password: password))).ok.body.json
    try expect(!session.accessToken.isEmpty, "logging in gave no access token")
    let user = Client(serverURL: server, transport: transport, middlewares: [Credential(.bearer(session.accessToken))])

    let draft = Operations.CreateHabit.Input.Body.JsonPayload(
        value1: .init(name: "Read", kind: .boolean, schedule: .case1(.init(_type: .daily))),
        value2: .case1(.init()))
    let habit = try await user.createHabit(body: .json(draft)).created.body.json
    try expect(!habit.completedToday, "a new habit is already completed")
    let logged = try await user.logHabit(path: .init(id: habit.id), body: .json(.init())).created.body.json
    try expect(logged.completedToday, "the logged habit is not completed today")

    let today = try await user.getToday().ok.body.json
    try expect(today.habits.contains { $0.id == habit.id && $0.completedToday }, "Today does not show the habit done")

    let device = try await user.createDevice(body: .json(.init(name: "Swift client watch", kind: .watch))).created.body.json
    let key = try device.apiKey ?? { throw CheckFailure("the new device has no key") }()
    let watch = Client(serverURL: server, transport: transport, middlewares: [Credential(.deviceKey(key))])
    let end = Date(), start = end.addingTimeInterval(-600)
    let batch = Components.Schemas.HealthBatch(samples: [
        .init(uuid: UUID().uuidString, metric: "steps", value: 1_234, unit: "count", start: start, end: end,
              source: .init(name: "Swift client watch", kind: .watch)),
    ])
    let stored = try await watch.ingestHealthBatch(body: .json(batch)).ok.body.json
    try expect(stored.inserted == 1 && stored.rejected == 0, "the batch stored \(stored.inserted) and rejected \(stored.rejected)")

    let briefing = try await user.getBriefing().ok.body.json
    try expect(!briefing.date.isEmpty, "the briefing names no date")
    print("lifelog-client-check: registered, logged in, created and logged a habit, read Today, stored a health batch with a device key, read the briefing of \(briefing.date): every answer decoded")
}

guard CommandLine.arguments.count == 2, let server = URL(string: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: lifelog-client-check <server URL>\n".utf8))
    exit(2)
}
do {
    try await run(server)
} catch {
    FileHandle.standardError.write(Data("lifelog-client-check: FAILED: \(error)\n".utf8))
    exit(1)
}
