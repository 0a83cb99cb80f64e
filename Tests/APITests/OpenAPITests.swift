// @testable: the DTOs, their encoder and the views they are made from are internal.
@testable import API
@testable import Core
@testable import Domain
import EventStore
@testable import Projections
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite struct OpenAPITests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

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
            let dependencies = try await AppDependencies.forTests(client: client)
            let routes = RouteTable()
            _ = buildRouter(dependencies, routes: routes)
            let registered = Set(routes.all().map { route in
                // The router writes parameters as {id} or :id; the document as {id}.
                let path = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "\(route.method) /" + path.joined(separator: "/")
            })
            let app = buildApplication(dependencies)
            try await app.test(.router) { http in
                let response = try await http.call(.get, "/openapi.yaml")
                #expect(response.status == .ok)
                #expect(response.text.hasPrefix("openapi: 3.1.0"))
                #expect(response.headers[.contentType] == "application/yaml; charset=utf-8")
                // A generator that reads only text types asks for text/yaml and gets the same text.
                let asText = try await http.call(.get, "/openapi.yaml", headers: [.accept: "text/yaml"])
                #expect(asText.headers[.contentType] == "text/yaml; charset=utf-8" && asText.text == response.text)
                let documented = Self.documented(response.text)
                #expect(registered.subtracting(documented).sorted() == [], "registered but not documented")
                #expect(documented.subtracting(registered).sorted() == [], "documented but not registered")
                #expect(registered.count > 15)
            }
        }
    }

    // MARK: - The files and their merge

    @Test func theMergeGivesBaseHeaderThenEachComponentKindOnceThenPaths() {
        let base = "# a comment\nopenapi: 3.1.0\ninfo:\n  title: t\ncomponents:\n  schemas:\n    A: { type: string }\n"
        let first = "components:\r\n  schemas:\r\n    B: { type: string }\r\n  parameters:\r\n    P: { name: p }\r\npaths:\r\n  /b:\r\n    get: {}\r\n"
        let second = "paths:\n  /c:\n    get: {}\ncomponents:\n  schemas:\n    C: { type: string }\n\n"
        #expect(OpenAPIDocument.merged(base: base, parts: [first, second]) == """
            openapi: 3.1.0
            info:
              title: t
            components:
              schemas:
                A: { type: string }
                B: { type: string }
                C: { type: string }
              parameters:
                P: { name: p }
            paths:
              /b:
                get: {}
              /c:
                get: {}

            """)
        // Nothing it is given makes it trap.
        _ = OpenAPIDocument.merged(base: "", parts: ["", ":\n  :\n\u{0}", "components:\n  :\n    x\n  \n"])
    }

    /// What one YAML file declares, read by lines as the merge reads them.
    struct Declared {
        var topLevel: [String] = []
        /// `schemas/Habit`, `parameters/Limit`, ...
        var components: [String] = []
        var paths: [String] = []
        /// `GET /api/v1/habits`, ...
        var operations: [String] = []
    }

    static func declared(_ yaml: String) -> Declared {
        var result = Declared()
        var top = "", sub = "", path = ""
        for line in yaml.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let indent = line.prefix { $0 == " " }.count
            let text = line.dropFirst(indent)
            guard !text.hasPrefix("#"), let colon = text.firstIndex(of: ":") else { continue }
            let key = String(text[..<colon])
            switch (indent, top) {
            case (0, _): top = key; result.topLevel.append(key)
            case (2, "components"): sub = key
            case (4, "components"): result.components.append("\(sub)/\(key)")
            case (2, "paths"): path = key; result.paths.append(key)
            case (4, "paths") where methods.contains(key): result.operations.append("\(key.uppercased()) \(path)")
            default: break
            }
        }
        return result
    }

    static func keys(_ object: Any?) -> [String] { (object as? [String: Any]).map { Array($0.keys) } ?? [] }

    @Test func theMergedDocumentHoldsWhatEveryFileDeclaresOnce() throws {
        let base = try #require(OpenAPIDocument.file("base"), "base.yaml is not in the API target's resource bundle")
        var files = [("base", Self.declared(base))]
        for area in OpenAPIDocument.areas {
            let text = try #require(OpenAPIDocument.file(area), "\(area).yaml is not in the API target's resource bundle")
            let declared = Self.declared(text)
            #expect(Set(declared.topLevel).isSubset(of: ["paths", "components"]), "\(area).yaml: only paths and components")
            #expect(!declared.paths.isEmpty, "\(area).yaml has no paths")
            files.append((area, declared))
        }
        #expect(Set(["openapi", "info", "components"]).isSubset(of: files[0].1.topLevel))
        #expect(files[0].1.paths == [], "base.yaml holds no paths")
        // No key twice, in one file or across files: a YAML parser would silently keep the last.
        for (kind, keys) in [("component", files.flatMap { $0.1.components }), ("path", files.flatMap { $0.1.paths })] {
            let repeated = Dictionary(grouping: keys, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            #expect(repeated == [], "\(kind)s declared more than once")
        }

        // The merged document, read by a real YAML parser, holds exactly what the files declare.
        let document = try Self.mergedJSON()
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = document["paths"] as? [String: Any] ?? [:]
        #expect(Set(paths.keys) == Set(files.flatMap { $0.1.paths }))
        let operations = paths.flatMap { path, item in
            Self.keys(item).filter { Self.methods.contains($0) }.map { "\($0.uppercased()) \(path)" }
        }
        #expect(Set(operations) == Set(files.flatMap { $0.1.operations }))
        let components = (document["components"] as? [String: Any] ?? [:]).flatMap { kind, entries in
            Self.keys(entries).map { "\(kind)/\($0)" }
        }
        #expect(Set(components) == Set(files.flatMap { $0.1.components }))
        #expect(operations.count > 15 && components.contains("schemas/Habit"))
    }

    @Test func theMergedDocumentIsValidOpenAPI31() throws {
        _ = try Self.python("""
            import sys
            try:
                import yaml
                from openapi_spec_validator import validate
            except ImportError as error:
                sys.exit(f"a Python module is missing ({error}); install: \(Self.pipInstall)")
            with open("in.yaml") as f:
                document = yaml.safe_load(f)
            try:
                validate(document)  # 3.1 from the document's openapi field; resolves every $ref
            except Exception as error:
                sys.exit(f"/openapi.yaml is not valid OpenAPI 3.1: {str(error)[:3000]}")
            """, input: OpenAPIDocument.yaml)
    }

    /// The lists the document gives for currencies and time zones are the server's own: a code
    /// or zone it lists is taken, one it does not list is refused (issue 24: "AAA" matched the
    /// document's pattern and answered 422). Both come from the platform, so a toolchain whose
    /// lists differ fails here until the document says so.
    @Test func theDocumentsCurrenciesAndTimeZonesAreTheServers() throws {
        let schemas = try #require((try Self.mergedJSON()["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let currencies = try #require((schemas["Currency"] as? [String: Any])?["enum"] as? [String])
        let zones = try #require((schemas["TimeZone"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(currencies) == Set(Locale.commonISOCurrencyCodes.filter(Currencies.isValid)))
        #expect(Set(zones) == Set(TimeZone.knownTimeZoneIdentifiers + ["UTC"]).filter(TimeZones.isValid))
        #expect(currencies.count == Set(currencies).count && zones.count == Set(zones).count)
    }

    /// Every date a client sends is held to the pattern of the dates the server takes (issue 24:
    /// `format: date` is only an annotation, and 0491-12-17 or "" passed as schema-valid): a
    /// parameter or a request body's field with `format: date` has a pattern as well.
    @Test func everyDateAClientSendsHasTheServersPattern() throws {
        let document = try Self.mergedJSON()
        var unbounded: [String] = []
        func walk(_ node: Any?, _ at: String, depth: Int = 0) {
            guard depth < 30, let schema = node.flatMap({ Self.resolved($0, in: document) }) else { return }
            if schema["format"] as? String == "date", schema["pattern"] == nil { unbounded.append(at) }
            for combinator in ["allOf", "anyOf", "oneOf"] {
                for (index, branch) in (schema[combinator] as? [Any] ?? []).enumerated() { walk(branch, "\(at)/\(combinator)/\(index)", depth: depth + 1) }
            }
            for (name, property) in schema["properties"] as? [String: Any] ?? [:] { walk(property, "\(at).\(name)", depth: depth + 1) }
            walk(schema["items"], "\(at)[]", depth: depth + 1)
        }
        var operations = 0
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            guard let item = item as? [String: Any] else { continue }
            let shared = item["parameters"] as? [Any] ?? []
            for (method, operation) in item where Self.methods.contains(method) {
                guard let operation = operation as? [String: Any] else { continue }
                operations += 1
                for parameter in shared + (operation["parameters"] as? [Any] ?? []) {
                    let resolved = Self.resolved(parameter, in: document)
                    walk(resolved?["schema"], "\(method.uppercased()) \(path) ?\(resolved?["name"] as? String ?? "")")
                }
                let body = (operation["requestBody"].flatMap { Self.resolved($0, in: document) }?["content"] as? [String: Any])?["application/json"]
                walk((body as? [String: Any])?["schema"], "\(method.uppercased()) \(path) body")
            }
        }
        #expect(operations > 90)
        #expect(unbounded.sorted() == [], "dates a client sends without the Date pattern")
    }

    /// The conventions that hold on every route of a kind are declared on each (issue 24):
    /// Idempotency-Key, with its 422, on every authenticated POST (the middleware applies to all
    /// of them); 400 and 412 wherever If-Match is taken; 400 wherever a cursor is.
    @Test func everyRouteDeclaresTheConventionsItFollows() throws {
        let document = try Self.mergedJSON()
        var missing: [String] = []
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            guard let item = item as? [String: Any] else { continue }
            for (method, operation) in item where Self.methods.contains(method) {
                guard let operation = operation as? [String: Any] else { continue }
                let parameters = ((item["parameters"] as? [Any] ?? []) + (operation["parameters"] as? [Any] ?? []))
                    .compactMap { Self.resolved($0, in: document)?["name"] as? String }
                let statuses = Set((operation["responses"] as? [String: Any] ?? [:]).keys)
                let label = "\(method.uppercased()) \(path)"
                // The middleware knows the caller from a bearer token or a device key; an app's own
                // credential (HealthPush's X-Webhook-Secret) is read by its route, after it.
                let schemes = (operation["security"] as? [[String: Any]] ?? []).flatMap(\.keys)
                let authenticated = schemes.contains("bearer") || schemes.contains("deviceKey")
                if method == "post", authenticated, !parameters.contains("Idempotency-Key") { missing.append("\(label): Idempotency-Key") }
                if parameters.contains("Idempotency-Key"), !statuses.contains("422") { missing.append("\(label): 422 for Idempotency-Key") }
                if parameters.contains("If-Match"), !statuses.isSuperset(of: ["400", "412"]) { missing.append("\(label): 400 and 412 for If-Match") }
                if parameters.contains("cursor"), !statuses.contains("400") { missing.append("\(label): 400 for cursor") }
            }
        }
        #expect(missing.sorted() == [])
    }

    /// Issue 26: generated clients name their methods after `operationId` and group them by tag;
    /// without them every method was named after its path (`get_api_v1_health_daily`).
    @Test func everyOperationHasAUniqueCamelCaseIdAndADeclaredTag() throws {
        let document = try Self.mergedJSON()
        let declared = Set((document["tags"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
        var ids: [String: [String]] = [:]
        var problems: [String] = []
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in item as? [String: Any] ?? [:] where Self.methods.contains(method) {
                let label = "\(method.uppercased()) \(path)"
                let operation = operation as? [String: Any] ?? [:]
                guard let id = operation["operationId"] as? String else { problems.append("\(label): no operationId"); continue }
                ids[id, default: []].append(label)
                let camel = id.first?.isLowercase == true && id.allSatisfy { $0.isLetter || $0.isNumber }
                if !camel { problems.append("\(label): \(id) is not camelCase") }
                let tags = operation["tags"] as? [String] ?? []
                if tags.isEmpty { problems.append("\(label): no tag") }
                for tag in tags where !declared.contains(tag) { problems.append("\(label): tag \(tag) is not declared at the top") }
            }
        }
        for (id, labels) in ids where labels.count > 1 { problems.append("\(id) names \(labels.sorted())") }
        #expect(problems.sorted() == [])
        #expect(ids.count >= 97)
    }

    // MARK: - Python, for a real YAML parser and the OpenAPI validator

    static let pipInstall = "python3 -m pip install openapi-spec-validator==0.9.0 PyYAML==6.0.3 (as .ci/run does)"

    struct PythonFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `python3 -c script` in a fresh temporary folder holding `input` as `in.yaml`; answers
    /// what the script wrote to `out.json`, if anything. A missing python3 or module, or a failing
    /// script, throws with what python said: these checks must fail, never skip, without it.
    static func python(_ script: String, input: String) throws -> Data? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try input.write(to: folder.appendingPathComponent("in.yaml"), atomically: true, encoding: .utf8)
        // To a file, not a pipe: a pipe nobody reads yet fills up and blocks python.
        let log = folder.appendingPathComponent("python.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw PythonFailed(description: "cannot create \(log.path)") }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        process.currentDirectoryURL = folder
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        if process.terminationStatus == 127 {
            throw PythonFailed(description: "python3 is not on PATH (\(said)); install Python 3, then \(pipInstall)")
        }
        guard process.terminationStatus == 0 else {
            throw PythonFailed(description: "python3 exited \(process.terminationStatus): \(said)")
        }
        return try? Data(contentsOf: folder.appendingPathComponent("out.json"))
    }

    /// The merged document as PyYAML reads it, through JSON.
    static func mergedJSON() throws -> [String: Any] {
        let data = try python("""
            import json, sys
            try:
                import yaml
            except ImportError as error:
                sys.exit(f"a Python module is missing ({error}); install: \(pipInstall)")
            with open("in.yaml") as f:
                document = yaml.safe_load(f)
            with open("out.json", "w") as f:
                json.dump(document, f, default=str)
            """, input: OpenAPIDocument.yaml)
        let object = try JSONSerialization.jsonObject(with: try #require(data, "python wrote no JSON"))
        return try #require(object as? [String: Any], "the document is not a mapping")
    }

    // MARK: - Response DTOs against their schemas

    /// One response body as the API encodes it, and the answer of the document that describes
    /// it. A `full` sample sets every optional field, so its keys must be exactly the schema's
    /// properties; the others leave them out, so they must still send every required one.
    struct Sample {
        var name: String
        var route: String
        var status: String
        var json: Data
        var full: Bool
        /// The Swift type encoded, with its generic arguments (`Page<HabitDTO>`): what it samples.
        var type = ""
    }

    static func sample(_ name: String, _ route: String, _ status: String, full: Bool, _ value: some Encodable) throws -> Sample {
        Sample(name: name, route: route, status: status, json: try AppRequestContext.makeEncoder().encode(value), full: full,
               type: String(reflecting: Swift.type(of: value)))
    }

    /// Every answer type the API declares (`ResponseEncodable`) is among the samples above: a DTO
    /// added to a route without one fails here, not only in a reviewer's memory.
    @Test func everyResponseDTOHasASample() throws {
        let declaration = try Regex(#"(?:struct|enum|final class) ([A-Za-z]+)(?:<[^>]*>)?: [^{]*ResponseEncodable"#)
        let root = TestDatabase.packageRoot.appendingPathComponent("Sources/API")
        var declared: Set<String> = []
        for case let file as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) ?? .init()
        where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                if let name = match.output[1].substring { declared.insert(String(name)) }
            }
        }
        #expect(declared.count > 30, "the scan found the DTOs")
        let sampled = Set(try Self.samples().flatMap { $0.type.split(whereSeparator: { !$0.isLetter }).map(String.init) })
        #expect(declared.subtracting(sampled).sorted() == [], "response types without a sample in OpenAPITests.samples()")
    }

    /// A sample of every response DTO (`everyResponseDTOHasASample` fails on one without).
    static func samples() throws -> [Sample] {
        let id = UUID()
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let day = try #require(LocalDate("2026-11-23"))
        func habit(full: Bool, schedule: HabitSchedule = .weekdays([1, 3, 5])) -> HabitDTO {
            HabitDTO(HabitView(
                habit: Habit(id: id, name: "Read", emoji: full ? "📚" : nil, color: full ? "blue" : nil, kind: full ? .numeric : .boolean,
                             target: full ? 20 : nil, unit: full ? "pages" : nil, reminderTime: full ? LocalTime(hour: 8, minute: 0) : nil,
                             startDate: day, schedules: [.init(from: day, schedule: schedule)]),
                schedule: schedule, version: 3, date: day,
                state: HabitState(
                    dueToday: true, completedToday: false, todayValue: full ? 5 : nil,
                    periodProgress: full ? .init(done: 1, target: 3, start: day, end: day.adding(days: 6)) : nil,
                    currentStreak: 2, bestStreak: 5, completionRate30d: full ? 0.5 : nil,
                    nextDueDate: full ? day.adding(days: 2) : nil),
                position: .init(createdMicros: 0, id: id)))
        }
        func task(full: Bool) -> TaskDTO {
            TaskDTO(TaskView(
                id: id, title: "Pay rent", notes: full ? "by card" : nil, priority: 2, dueDate: full ? day : nil,
                dueTime: full ? LocalTime(hour: 9, minute: 30) : nil, repeat: full ? TaskRepeat(every: .month) : nil,
                completed: full, completedAt: full ? now : nil, nextTaskId: full ? UUID() : nil, overdue: false,
                dueToday: full, version: 1, createdAt: now,
                sortKey: TaskCursor(due: "2026-11-23", priority: 2, createdMicros: 0, id: id)))
        }
        let user = UserRecord(
            id: id, profile: .new(email: "ana@example.com", name: "Ana", timezone: "Europe/Belgrade", language: .en, currency: "EUR"),
            version: 1, createdAt: now)
        let webhook = WebhookEndpoint(id: id, userId: id, purpose: "reminders", url: "https://hooks.example.com/x", events: [], secret: "whsec_x",
                                      previousSecret: nil, previousUntil: nil, disabledAt: now, disabledReason: "the receiver answered 410 Gone", createdAt: now)
        let pair = TokenPair(accessToken: "access", refreshToken: "refresh", expiresIn: 900)
        func device(full: Bool) -> DeviceDTO {
            DeviceDTO(DeviceRecord(id: id, name: "Watch", kind: "watch", createdAt: now, lastUsedAt: full ? now : nil),
                      zone: full ? TimeZone(identifier: "Europe/Belgrade") : nil, apiKey: full ? "key" : nil, connect: full ? DeviceDTO.Connect(root: "https://lifelog.example.com") : nil)
        }
        var samples = [
            try sample("Habit", "GET /api/v1/habits/{id}", "200", full: true, habit(full: true)),
            try sample("Habit (no optionals)", "GET /api/v1/habits/{id}", "200", full: false, habit(full: false)),
            try sample("Habit page", "GET /api/v1/habits", "200", full: true, Page(items: [habit(full: true)], nextCursor: "next")),
            try sample("Habit page (last)", "GET /api/v1/habits", "200", full: false, Page(items: [habit(full: false)], nextCursor: nil)),
            try sample("Freeze", "POST /api/v1/habits/{id}/freezes", "201", full: true,
                       HabitsArea.FreezeDTO(freezeId: id.uuidString.lowercased(), habit: habit(full: true))),
            try sample("Logs", "GET /api/v1/habits/{id}/logs", "200", full: true,
                       Items(items: [HabitsArea.LogDTO(date: "2026-11-23", value: 2)])),
            try sample("History", "GET /api/v1/habits/{id}/history", "200", full: true,
                       Items(items: [HabitsArea.HistoryDTO(start: "2026-11-23", end: "2026-11-23", status: "satisfied")])),
            try sample("Task", "GET /api/v1/tasks/{id}", "200", full: true, task(full: true)),
            try sample("Task (no optionals)", "GET /api/v1/tasks/{id}", "200", full: false, task(full: false)),
            try sample("Task page", "GET /api/v1/tasks", "200", full: true, Page(items: [task(full: true)], nextCursor: "next")),
            try sample("Task page (last)", "GET /api/v1/tasks", "200", full: false, Page(items: [task(full: false)], nextCursor: nil)),
            try sample("User", "GET /api/v1/me", "200", full: true, UserDTO(user, webhook: webhook, newSecret: "whsec_new")),
            try sample("User (no webhook)", "GET /api/v1/me", "200", full: false, UserDTO(user)),
            // The token answers' user carries no webhook part; a full sample with one checks the rest.
            try sample("TokenPair", "POST /api/v1/auth/login", "200", full: true, { var dto = TokenDTO(pair, user: user); dto.user = UserDTO(user, webhook: webhook, newSecret: "whsec_new"); return dto }()),
            try sample("TokenPair (no user)", "POST /api/v1/auth/refresh", "200", full: false, TokenDTO(pair)),
            try sample("Browser session", "POST /api/v1/auth/browser/login", "200", full: true, {
                var dto = AccountsArea.BrowserSessionDTO(pair, user: user, firstView: DashboardFirstView(
                    labels: LabelsDTO(lang: "en", labels: ["dash.app": "lifelog"]), reads: DashboardFirstView.Reads()))
                dto.user = UserDTO(user, webhook: webhook, newSecret: "whsec_new")
                return dto
            }()),
            try sample("Device", "POST /api/v1/devices", "201", full: true, device(full: true)),
            try sample("Device (no optionals)", "POST /api/v1/pair", "201", full: false, device(full: false)),
            try sample("Device page", "GET /api/v1/devices", "200", full: true, Page(items: [device(full: true)], nextCursor: "next")),
            try sample("Device page (last)", "GET /api/v1/devices", "200", full: false, Page(items: [device(full: false)], nextCursor: nil)),
            try sample("PairingCode", "POST /api/v1/devices/pairing-codes", "201", full: true,
                       AccountsArea.PairingCodeDTO(code: "ABCD2345", expiresAt: now)),
            try sample("WhoAmI (device)", "GET /api/v1/ingest/whoami", "200", full: true,
                       AccountsArea.WhoAmIDTO(userId: id.uuidString.lowercased(), deviceId: id.uuidString.lowercased(), scope: "ingestion")),
            try sample("WhoAmI (user)", "GET /api/v1/ingest/whoami", "200", full: false,
                       AccountsArea.WhoAmIDTO(userId: id.uuidString.lowercased(), deviceId: nil, scope: "user")),
            try sample("Status (healthz)", "GET /healthz", "200", full: false, HealthRoutes.Status(status: "ok")),
            try sample("Status (readyz)", "GET /readyz", "200", full: true, HealthRoutes.Status(status: "ready", database: "up", migrations: "current")),
        ]
        samples += try savingsSamples()
        samples += try reminderSamples()
        samples += try clientSamples()
        samples += try healthSamples()
        samples += try importSamples()
        let eur = try #require(Currency("EUR"))
        let money = { (minor: Int64) in Money(minorUnits: minor, currency: eur) }
        func category(full: Bool) -> CategoryView {
            CategoryView(id: id, name: "Food", emoji: full ? "🛒" : nil, kind: .expense, color: full ? "green" : nil, archived: false,
                         budgets: full ? [(LocalMonth(day), money(20_000)), (LocalMonth(day).adding(months: 1), nil)] : [],
                         version: 2, createdAt: now)
        }
        func transaction(full: Bool) -> TransactionView {
            TransactionView(id: id, kind: .expense, amount: money(1_250), categoryId: full ? id : nil, date: day, note: full ? "lunch" : nil,
                            version: 1, createdAt: now, position: TransactionCursor(date: "2026-11-23", createdMicros: 0, id: id))
        }
        let label = CategoryLabel(id: id, name: "Food", emoji: "🛒", kind: .expense)
        let share = CategoryShare(category: label, total: money(1_250), share: "100.0")
        let summary = FinanceSummary(from: day, to: day, currencies: [FinanceSummary.PerCurrency(
            currency: eur, income: money(0), expense: money(1_250), net: money(-1_250), byCategory: [share],
            uncategorizedIncome: money(0), uncategorizedExpense: money(0),
            budgets: [.init(categoryId: id, amount: money(20_000), spent: money(1_250), remaining: money(18_750), usedPercent: "6.3", status: .under)])])
        let analytics = FinanceAnalytics(from: day, to: day, currencies: [FinanceAnalytics.PerCurrency(
            currency: eur, months: [.init(month: LocalMonth(day), income: money(0), expense: money(1_250), net: money(-1_250))],
            topCategories: [share], averageDailyExpense: money(54),
            change: .init(expense: money(1_250), expensePercent: nil, income: money(0), incomePercent: "-100.0"))])
        samples += [
            try sample("Category", "GET /api/v1/finance/categories/{id}", "200", full: true, CategoryDTO(category(full: true), today: day)),
            try sample("Category (no optionals)", "GET /api/v1/finance/categories/{id}", "200", full: false, CategoryDTO(category(full: false), today: day)),
            try sample("Categories", "GET /api/v1/finance/categories", "200", full: true, Items(items: [CategoryDTO(category(full: true), today: day)])),
            try sample("Transaction", "GET /api/v1/finance/transactions/{id}", "200", full: true, TransactionDTO(transaction(full: true))),
            try sample("Transaction (no optionals)", "GET /api/v1/finance/transactions/{id}", "200", full: false, TransactionDTO(transaction(full: false))),
            try sample("Transaction page", "GET /api/v1/finance/transactions", "200", full: true,
                       Page(items: [TransactionDTO(transaction(full: true))], nextCursor: "next")),
            try sample("Summary", "GET /api/v1/finance/summary", "200", full: true, SummaryDTO(summary)),
            try sample("Analytics", "GET /api/v1/finance/analytics", "200", full: true, AnalyticsDTO(analytics)),
        ]
        // Each schedule type against its branch of HabitSchedule's oneOf.
        for schedule: HabitSchedule in [.daily, .timesPerWeek(3), .everyNDays(2), .monthly(.day(31)), .monthly(.last)] {
            samples.append(try sample("Habit (\(schedule))", "GET /api/v1/habits/{id}", "200", full: true, habit(full: true, schedule: schedule)))
        }
        // Recovery: a scored date with a check-in, and a calibrating one with neither.
        var inputs = RecoveryInputs()
        for offset in 1...10 {
            inputs.sleepMinutes[day.adding(days: -offset)] = Double(400 + offset)
            inputs.hrvMs[day.adding(days: -offset)] = Double(40 + offset)
        }
        (inputs.sleepMinutes[day], inputs.hrvMs[day]) = (450, 45)
        let scored = RecoveryFormula.score(date: day, inputs: inputs)
        let checkIn = HealthReadModel.CheckIn(date: day, feeling: 4, note: "fine")
        let calibrating = RecoveryFormula.score(date: day, inputs: RecoveryInputs(sleepMinutes: [day: 420], hrvMs: [day: 50, day.adding(days: -1): 50]))
        samples += [
            // The recovery answers write their own JSON: the samples are what they write.
            Sample(name: "Recovery", route: "GET /api/v1/health/recovery", status: "200",
                   json: Data(RecoveryDTO(scored, checkIn: checkIn, language: .ru).jsonText.utf8), full: false),
            Sample(name: "Recovery (calibrating)", route: "GET /api/v1/health/recovery", status: "200",
                   json: Data(RecoveryDTO(calibrating, checkIn: nil, language: .en).jsonText.utf8), full: false),
            Sample(name: "Recovery series", route: "GET /api/v1/health/recovery", status: "200",
                   json: Data(RecoveryListDTO(asOfPosition: "1/2", items: [RecoveryDTO(scored, checkIn: nil, language: .sr)]).jsonText.utf8), full: false),
            try sample("Check-in", "PUT /api/v1/health/checkins/{date}", "200", full: true, CheckInDTO(checkIn, language: .en)),
            try sample("Labels", "GET /api/v1/labels", "200", full: true, LabelsDTO(lang: "en", labels: LabelCatalogue.labels(.en))),
        ]
        let night = SleepNight(date: day, asleepMinutes: 450, inBedMinutes: 470, awakeMinutes: 20, coreMinutes: 300, deepMinutes: 60,
                               remMinutes: 90, startSeconds: 0, endSeconds: 0, source: "Watch", segments: [])
        let briefing = BriefingComposer.compose(
            BriefingInputs(date: day, recovery: scored, nights: [day: night], days: [.steps: [day.adding(days: -1): 9_000], .bodyMass: [day: 70]],
                           feeling: 3), language: .en)
        samples += [
            try sample("Briefing", "GET /api/v1/health/briefing", "200", full: true,
                       BriefingDTO(briefing, checkIn: checkIn, freshness: [.sleep: 1_790_000_000], language: .en, asOf: "1/2")),
            try sample("Briefing (empty)", "GET /api/v1/health/briefing", "200", full: false,
                       BriefingDTO(BriefingComposer.compose(BriefingInputs(date: day, recovery: calibrating, nights: [:], days: [:], feeling: nil),
                                                            language: .sr), checkIn: nil, freshness: [:], language: .sr, asOf: "1/2")),
        ]
        let finding = HealthReadModel.Finding(
            id: id, type: .massDeletion, severity: .critical, metric: "steps", from: day, to: day,
            evidence: #"{"removed":3,"stored_before":20,"percent":15,"dates":["2026-11-23"]}"#, status: .open, detectedAt: now)
        var unnamed = finding
        (unnamed.type, unnamed.metric, unnamed.evidence) = (.duplicates, nil, #"{"received":40,"duplicates":10,"percent":25,"format":"native"}"#)
        samples += [
            try sample("Finding", "PATCH /api/v1/health/quality/{id}", "200", full: true, FindingDTO(finding, language: .en, position: "1/2")),
            try sample("Findings", "GET /api/v1/health/quality", "200", full: false,
                       FindingsDTO(asOfPosition: "1/2", items: [try FindingDTO(finding, language: .ru), try FindingDTO(unnamed, language: .sr)])),
            try sample("Quality summary", "GET /api/v1/health/quality/summary", "200", full: true,
                       QualitySummaryDTO([.init(type: .massDeletion, severity: .critical, status: .open, count: 2),
                                          .init(type: .gap, severity: .info, status: .acknowledged, count: 1)], language: .en, asOf: "1/2")),
        ]
        #expect(calibrating.status == .calibrating)
        // Problems are encoded by Problem.response(from:), with a plain encoder, not the context's.
        let problem = Problem.invalid([.init(field: "name", message: "must be 1 to 100 characters")])
        samples.append(Sample(name: "Problem", route: "GET /healthz", status: "default", json: try Self.problemEncoder.encode(problem), full: true))
        samples.append(Sample(name: "Problem (no optionals)", route: "GET /healthz", status: "default",
                              json: try Self.problemEncoder.encode(Problem(type: "about:blank", title: "Gone", status: 410)), full: false))
        return samples
    }

    static var problemEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    @Test func everyResponseDTOSendsTheKeysItsSchemaDocuments() throws {
        let document = try Self.mergedJSON()
        for sample in try Self.samples() {
            let schema = Self.responseSchema(sample.route, sample.status, in: document)
            #expect(schema != nil, "\(sample.route) answers \(sample.status) with no JSON schema in the document")
            guard let schema else { continue }
            let problems = Self.mismatches(try JSONSerialization.jsonObject(with: sample.json), schema, at: sample.name, in: document,
                                           exact: sample.full)
            #expect(problems == [], "\(sample.name), as \(sample.route) answers \(sample.status)")
        }
    }

    /// The JSON schema of one answer: `paths → path → method → responses → status → content`.
    static func responseSchema(_ route: String, _ status: String, in document: [String: Any]) -> Any? {
        let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2,
              let item = (document["paths"] as? [String: Any])?[parts[1]] as? [String: Any],
              let operation = item[parts[0].lowercased()] as? [String: Any],
              let response = (operation["responses"] as? [String: Any])?[status],
              let content = resolved(response, in: document)?["content"] as? [String: Any],
              let media = content.first(where: { $0.key.contains("json") })?.value as? [String: Any]
        else { return nil }
        return media["schema"]
    }

    /// `object` with `$ref`s followed; nil for a reference that leads nowhere.
    static func resolved(_ object: Any, in document: [String: Any]) -> [String: Any]? {
        var current = object as? [String: Any]
        var hops = 0
        while let reference = current?["$ref"] as? String {
            guard hops < 20, reference.hasPrefix("#/") else { return nil }
            var target: Any? = document
            for token in reference.dropFirst(2).split(separator: "/") {
                let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                target = (target as? [String: Any])?[key]
            }
            current = target as? [String: Any]
            hops += 1
        }
        return current
    }

    /// What does not fit between a JSON value and its schema: keys sent but not documented,
    /// required keys not sent and, when `exact`, documented keys not sent. Follows `$ref`,
    /// `properties` and `items`; for `oneOf` or `anyOf`, one branch must fit.
    static func mismatches(_ value: Any, _ schema: Any, at path: String, in document: [String: Any], exact: Bool) -> [String] {
        guard let schema = resolved(schema, in: document) else { return ["\(path): its schema's $ref leads nowhere"] }
        for combinator in ["oneOf", "anyOf"] {
            guard let branches = schema[combinator] as? [Any] else { continue }
            let results = branches.map { mismatches(value, $0, at: path, in: document, exact: exact) }
            if results.contains(where: \.isEmpty) { return [] }
            return ["\(path) fits no branch of \(combinator): " + results.map { $0.joined(separator: "; ") }.joined(separator: " | ")]
        }
        if let array = value as? [Any], let items = schema["items"] {
            return array.enumerated().flatMap { index, element in
                mismatches(element, items, at: "\(path)[\(index)]", in: document, exact: exact)
            }
        }
        guard let object = value as? [String: Any] else { return [] }
        if schema["properties"] == nil, schema["additionalProperties"] as? Bool == true { return [] }
        if schema["properties"] == nil, let values = schema["additionalProperties"] as? [String: Any] {
            // A map (labels by key): every value against the one schema.
            return object.keys.sorted().flatMap { mismatches(object[$0] as Any, values, at: "\(path).\($0)", in: document, exact: exact) }
        }
        guard let properties = schema["properties"] as? [String: Any] else { return ["\(path) is an object, but its schema lists no properties"] }
        let sent = Set(object.keys)
        let documented = Set(properties.keys)
        var problems = sent.subtracting(documented).sorted().map { "\(path).\($0) is sent but not documented" }
        problems += Set(schema["required"] as? [String] ?? []).subtracting(sent).sorted().map { "\(path).\($0) is required but not sent" }
        if exact {
            problems += documented.subtracting(sent).sorted().map { "\(path).\($0) is documented but not sent by this full sample" }
        }
        for key in sent.intersection(documented).sorted() {
            if let child = object[key], let childSchema = properties[key] {
                problems += mismatches(child, childSchema, at: "\(path).\(key)", in: document, exact: exact)
            }
        }
        return problems
    }
}
