import API
import Core
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// Behind a proxy every connection comes from the proxy: `TRUSTED_PROXIES` lets the throttles
/// count each client by the hop the proxy wrote, and nobody else's `X-Forwarded-For` counts.
@Suite struct TrustedProxiesTests {
    static func proxies() throws -> TrustedProxies { try TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8 fd00::/8") }

    @Test func theClientIsTheRightmostHopThatIsNotAProxy() throws {
        let proxies = try Self.proxies()
        // A peer that is not a proxy: its own header proves nothing.
        #expect(proxies.client(peer: "198.51.100.7", forwardedFor: ["203.0.113.5"]) == "198.51.100.7")
        // The proxy's hop; what the client wrote to its left is ignored.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["1.1.1.1, 203.0.113.5"]) == "203.0.113.5")
        // Two proxies in a row (one on the 10/8 network), over two header lines, with ports.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["203.0.113.5:4711", "10.1.2.3"]) == "203.0.113.5")
        #expect(proxies.client(peer: "::ffff:127.0.0.1", forwardedFor: ["[2001:db8::1]:443"]) == "2001:db8::1")
        #expect(proxies.client(peer: "fd12::1", forwardedFor: ["2001:db8::2"]) == "2001:db8::2")
        // No header, or one that is not an address: the last trusted hop.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: []) == "127.0.0.1")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["unknown, 10.0.0.9"]) == "10.0.0.9")
        #expect(!proxies.contains("11.0.0.1") && proxies.contains("10.255.0.1") && !proxies.contains("fe00::1"))
        // A prefix that is not a whole number of bytes; an IPv4-mapped hop inside an IPv4 range.
        let twelve = try TrustedProxies(parsing: "10.16.0.0/12")
        #expect(twelve.contains("10.31.255.255") && !twelve.contains("10.32.0.0") && twelve.contains("::ffff:10.20.0.1"))
        #expect(TrustedProxies.none.client(peer: "127.0.0.1", forwardedFor: ["203.0.113.5"]) == "127.0.0.1")
    }

    @Test func aSettingThatIsNotAnAddressIsRefusedAtStart() {
        for bad in ["10.0.0.0/33", "proxy.local", "::1/129", "10.0.0.0/x", "/", "10.0.0.0/", "10.0.0.0/+8", "/8"] {
            #expect(throws: TrustedProxies.Invalid.self) { try TrustedProxies(parsing: bad) }
        }
        #expect(throws: ServerConfiguration.Invalid.self) {
            try ServerConfiguration.fromEnvironment(["DATABASE_URL": "postgres://u@127.0.0.1/db", "TRUSTED_PROXIES": "nope"], signingKeys: false)
        }
    }

    /// Two registrations per address: behind the trusted proxy (the test client's 127.0.0.1),
    /// two clients each get their own two; with no proxy trusted, the header changes nothing.
    @Test(arguments: [true, false]) func registrationsBehindAProxyAreCountedPerClient(trusted: Bool) async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        try await TestDatabase.withAppClient { _, client in
            var dependencies = try await AppDependencies.forTests(client: client, registrationsPerAddress: 2, hasher: PasswordHasher(pool: pool))
            dependencies.trustedProxies = trusted ? try Self.proxies() : .none
            try await buildApplication(dependencies).test(.live) { http in
                func register(_ email: String, from address: String) async throws -> HTTPResponse.Status {
                    let body = #"{"email":"\#(email)","password":"correct horse battery","name":"P","timezone":"UTC"}"#
                    return try await http.execute(uri: "/api/v1/auth/register", method: .post,
                                                  headers: [.contentType: "application/json", HTTPField.Name("X-Forwarded-For")!: address],
                                                  body: ByteBuffer(string: body)).status
                }
                var statuses: [HTTPResponse.Status] = []
                for (email, address) in [("a1", "203.0.113.5"), ("a2", "203.0.113.5"), ("a3", "203.0.113.5"), ("b1", "198.51.100.7")] {
                    statuses.append(try await register("\(email)@example.com", from: address))
                }
                #expect(statuses == [.created, .created, .tooManyRequests, trusted ? .created : .tooManyRequests])
            }
        }
    }
}
