import API
import Core
import Domain
import EventStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Projections
import Testing
import TestSupport

/// Issue 24, items 5, 6, 7 and 10: webhooks made once per Idempotency-Key, addresses checked by
/// IANA's special-purpose registries with one piece of code at save and at delivery, secrets
/// never stored in the clear, and the per-user limit held under concurrency.
@Suite struct WebhookSecurityTests {
    @Test func specialPurposeAddressesAndEveryFormOfThemAreRefused() async {
        let refused = [
            "http://192.0.2.10/x", "http://198.51.100.7/x", "http://203.0.113.9/x",      // documentation
            "http://198.18.0.1/x", "http://100.64.1.1/x", "http://192.0.0.8/x", "http://240.0.0.1/x", "http://255.255.255.255/x",
            "http://[::ffff:127.0.0.1]/x", "http://[::127.0.0.1]/x", "http://[64:ff9b::127.0.0.1]/x", "http://[64:ff9b:1::a00:1]/x",
            "http://[::1%25lo]/x", "http://[fe80::1%25eth0]/x", "http://[2001:db8::1]/x", "http://[3fff::1]/x",
            "http://[2001::1]/x", "http://[2002:c000:204::1]/x", "http://[fd00::1]/x", "http://[::]/x", "http://0.0.0.0/x",
        ]
        for url in refused {
            #expect(WebhookRules.urlProblem(url, allowPrivate: false) != nil, "\(url) was accepted")
            // The same code decides at delivery.
            if case .success = await WebhookTarget.check(url, allowPrivate: false) { Issue.record("\(url) would be delivered to") }
        }
        for url in ["http://93.184.215.14/x", "https://[2606:4700::1111]/x", "http://8.8.8.8/x"] {
            #expect(WebhookRules.urlProblem(url, allowPrivate: false) == nil, "\(url) was refused")
            #expect(await WebhookTarget.check(url, allowPrivate: false) == .success(WebhookTarget(url: url, hostHeader: nil)))
        }
        // An interface zone is refused even where private targets are allowed: it names this host.
        #expect(WebhookRules.urlProblem("http://[fe80::1%25eth0]/x", allowPrivate: true) != nil)
    }

    @Test func aNameIsCheckedByWhatItResolvesToWhenSavedAndWhenDelivered() async throws {
        // This machine's own name resolves (when it resolves) to one of its own addresses.
        let name = ProcessInfo.processInfo.hostName.lowercased()
        let url = "http://\(name):9/x"
        try await AppHarness.with { _, http in
            let token = try #require(try await http.register("rebind@example.com").string("access_token"))
            let saved = try await http.call(.post, "/api/v1/webhooks", token: token, json: #"{"url":"\#(url)","events":["task.completed"]}"#)
            switch await WebhookTarget.check(url, allowPrivate: false) {
            case .failure(.notAllowed):
                #expect(saved.status.code == 422 && saved.fieldErrors == ["url"], "\(saved.text)")
            case .failure(.unresolvable):
                // Not resolvable here: accepted when saved, and checked again at every delivery.
                #expect(saved.status == .created, "\(saved.text)")
            case .success(let target):
                Issue.record("\(name) resolved to a public address (\(target)); this test needs a host name of its own machine")
            }
        }
    }

    @Test func theTestRouteSaysFailedTheSameWayForAClosedPortAndASilentOne() async throws {
        // A listener that accepts and never answers, and a port nobody listens on.
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(silent, 8)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(silent, $0, &length) } }
        let silentPort = Int(UInt16(bigEndian: address.sin_port))
        defer { close(silent) }
        try await AppHarness.with(allowPrivateWebhooks: true) { _, http in
            let token = try #require(try await http.register("scanner@example.com").string("access_token"))
            var answers: [(String, Duration)] = []
            for port in [silentPort, 1] {
                let id = try #require(try await http.call(.post, "/api/v1/webhooks", token: token,
                                                          json: #"{"url":"http://127.0.0.1:\#(port)/x","events":["task.completed"]}"#).string("id"))
                let started = ContinuousClock.now
                let tested = try await http.call(.post, "/api/v1/webhooks/\(id)/test", token: token)
                answers.append((tested.text, ContinuousClock.now - started))
                #expect(tested.object["delivered"] as? Bool == false)
            }
            #expect(answers[0].0 == answers[1].0, "\(answers)")
            #expect(answers.allSatisfy { $0.1 >= .seconds(4) }, "\(answers)")
        }
    }

    @Test func aRetriedCreationStoresOneWebhookAndAnswersWithItsSecret() async throws {
        try await AppHarness.with(allowPrivateWebhooks: true) { harness, http in
            let token = try #require(try await http.register("retry@example.com").string("access_token"))
            let body = #"{"url":"http://127.0.0.1:9/x","events":["task.completed"]}"#
            let key: HTTPFields = [.init("Idempotency-Key")!: "webhook-1"]
            let first = try await http.call(.post, "/api/v1/webhooks", token: token, headers: key, json: body)
            #expect(first.status == .created)
            // The answer was lost and the server forgot it (a crash before it was kept).
            _ = try await harness.count("DELETE FROM idempotency_keys")
            let retry = try await http.call(.post, "/api/v1/webhooks", token: token, headers: key, json: body)
            #expect(retry.status == .created, "\(retry.text)")
            #expect(retry.string("id") == first.string("id"))
            #expect(retry.string("secret") == first.string("secret"))
            let list = try await http.call(.get, "/api/v1/webhooks", token: token)
            #expect((list.object["items"] as? [Any])?.count == 1, "\(list.text)")
        }
    }

    @Test func thirtyConcurrentCreationsStopAtTheLimit() async throws {
        try await AppHarness.with(allowPrivateWebhooks: true) { _, http in
            let token = try #require(try await http.register("many@example.com").string("access_token"))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<30 {
                    group.addTask {
                        try await http.call(.post, "/api/v1/webhooks", token: token,
                                            json: #"{"url":"http://127.0.0.1:9/\#(n)","events":["task.completed"]}"#).status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == EventWebhookService.maximum, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 422 }.count == 30 - EventWebhookService.maximum, "\(statuses.sorted())")
            let list = try await http.call(.get, "/api/v1/webhooks", token: token)
            #expect((list.object["items"] as? [Any])?.count == EventWebhookService.maximum)
        }
    }

    @Test func aDatabaseDumpHoldsNoWebhookSecret() async throws {
        try await WebhookReceiver.with { receiver, url in
            try await AppHarness.with(allowPrivateWebhooks: true) { harness, http in
                let token = try #require(try await http.register("dump@example.com").string("access_token"))
                let eventSecret = WebhookSender.newSecret()
                let made = try await http.call(.post, "/api/v1/webhooks", token: token, headers: [.init("Idempotency-Key")!: "dump-1"],
                                               json: #"{"url":"\#(url)","events":["task.completed"],"secret":"\#(eventSecret)"}"#)
                #expect(made.status == .created && made.string("secret") == eventSecret)
                let profile = try await http.call(.patch, "/api/v1/me", token: token, headers: [.init("Idempotency-Key")!: "dump-2"],
                                                  json: #"{"reminders":{"webhook_url":"\#(url)"}}"#)
                let remindersSecret = try #require((profile.object["reminders"] as? [String: Any])?["webhook_secret"] as? String)
                // A secret stored before secrets were sealed is sealed by `serve` at start.
                let legacy = WebhookSender.newSecret()
                try await harness.client.run("""
                    INSERT INTO webhook_endpoints (id, user_id, purpose, url, events, secret, created_at)
                    SELECT gen_random_uuid(), user_id, 'events', 'http://127.0.0.1:9/legacy', ARRAY['task.completed'], \(legacy), now()
                    FROM rm_users WHERE email = 'dump@example.com'
                    """, logger: TestDatabase.logger)
                let sealer = harness.accounts.secretSealer
                #expect(try await WebhookEndpointStore(client: harness.client, sealer: sealer, logger: TestDatabase.logger).sealStoredSecrets() == 1)

                let dump = try Self.pgDump(harness.database.ownerURL)
                #expect(dump.contains("dump@example.com"), "the dump is of this database")
                for secret in [eventSecret, remindersSecret, legacy] {
                    #expect(!dump.contains(secret), "a secret is in the dump")
                    #expect(!dump.contains(String(secret.dropFirst(6))), "a secret's key is in the dump")
                }
                // And the sealed secrets still sign: a test push carries a valid signature.
                let id = try #require(made.string("id"))
                let tested = try await http.call(.post, "/api/v1/webhooks/\(id)/test", token: token)
                #expect(tested.object["delivered"] as? Bool == true, "\(tested.text)")
                let pushed = try #require(receiver.requests.last)
                #expect(pushed.signature == WebhookSender.signature(id: pushed.id, timestamp: Int64(pushed.timestamp) ?? 0, body: pushed.body,
                                                                    secrets: [eventSecret]))
            }
        }
    }

    /// `pg_dump` of a test database, as text.
    static func pgDump(_ url: DatabaseURL) throws -> String {
        let binaries = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted().last ?? "15"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/lib/postgresql/\(binaries)/bin/pg_dump")
        process.arguments = ["--host", url.host, "--port", String(url.port), "--username", url.username, "--no-owner", url.database]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
