import API
import Core
import EventStore
import Foundation
import HummingbirdTesting
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Bytes a hostile client or a broken network sends, against a live server on loopback (issue
/// 9): each used to answer 500 and be logged as an unhandled error. Now 413 or 400, problem+json.
@Suite struct HostileBytesTests {
    static let login = Array("POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n".utf8)

    static func chunked(_ body: [UInt8], size: Int = 65_536) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < body.count {
            let piece = body[index..<min(index + size, body.count)]
            out += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
            index += size
        }
        return out + Array("0\r\n\r\n".utf8)
    }

    static let cases: [(name: String, bytes: [UInt8], closeWrite: Bool, status: String)] = [
        ("a chunked body over MAX_BODY_BYTES", login + Array("Transfer-Encoding: chunked\r\n\r\n".utf8) + chunked(Array(repeating: 97, count: 1_100 * 1_024)),
         false, "413"),
        ("chunk size ZZ", login + Array("Transfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n".utf8), false, "400"),
        ("chunk size -1", login + Array("Transfer-Encoding: chunked\r\n\r\n-1\r\nabc\r\n0\r\n\r\n".utf8), false, "400"),
        ("a huge chunk size, then the client stops sending", login + Array("Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n".utf8),
         true, "400"),
        ("a chunk smaller than its data", login + Array("Transfer-Encoding: chunked\r\n\r\n2\r\nabcdef\r\n0\r\n\r\n".utf8), false, "400"),
        ("a body shorter than its Content-Length, then the client stops sending",
         login + Array("Content-Length: 100\r\n\r\n{\"email\":".utf8), true, "400"),
    ]

    @Test func clientBytesAreA413OrA400NeverA500() async throws {
        try await RawHTTP.withLiveServer { port in
            for item in Self.cases {
                let answer = try await RawHTTP.exchange(port: port, item.bytes, closeWrite: item.closeWrite)
                let statusLine = answer.split(separator: "\r\n").first.map(String.init) ?? ""
                #expect(statusLine.hasPrefix("HTTP/1.1 \(item.status)"), "\(item.name): \(answer.prefix(300))")
                #expect(answer.contains("application/problem+json"), "\(item.name): \(answer.prefix(300))")
            }
            // The server is still there for well-formed requests.
            let healthy = try await RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), closeWrite: false)
            #expect(healthy.hasPrefix("HTTP/1.1 200"))
        }
    }
}

/// A raw HTTP/1.1 exchange over a loopback socket: the bytes as given, the answer as text.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A live server on loopback, for bytes no HTTP client would send; `body` gets its port.
    static func withLiveServer(edge: EdgeLimits = AppHarness.edge, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await TestDatabase.withAppClient { _, client in
            let app = buildApplication(try await AppDependencies.forTests(client: client, edge: edge))
            try await app.test(.live) { http in try await body(try #require(http.port)) }
        }
    }

    /// The exchange on a thread of its own: its blocking reads must not hold one of the few
    /// threads the server's own async work runs on (two blocked tests starved it on 2 cores).
    static func exchange(port: Int, _ bytes: [UInt8], closeWrite: Bool, timeoutSeconds: Int = 5, untilClosed: Bool = false) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try blockingExchange(port: port, bytes, closeWrite: closeWrite, timeoutSeconds: timeoutSeconds, untilClosed: untilClosed)
                })
            }
        }
    }

    /// `untilClosed` reads until the server closes the connection (or the timeout), not just one answer.
    static func blockingExchange(port: Int, _ bytes: [UInt8], closeWrite: Bool, timeoutSeconds: Int, untilClosed: Bool) throws -> String {
        let connection = try RawSocket(port: port)
        defer { connection.close() }
        let fd = connection.fd
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a server that answers early and closes must not kill the test with SIGPIPE.
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        if closeWrite { shutdown(fd, Int32(SHUT_WR)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
            if untilClosed { continue }
            // One answer is enough: its headers and a body of its Content-Length.
            if let text = String(bytes: answer, encoding: .utf8), let end = text.range(of: "\r\n\r\n"),
               let length = text[..<end.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") })
                .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
               text.utf8.distance(from: end.upperBound.samePosition(in: text.utf8) ?? text.utf8.endIndex, to: text.utf8.endIndex) >= length {
                break
            }
        }
        return String(decoding: answer, as: UTF8.self)
    }
}

/// Connection time limits and HTTP/1.0 (issue 9), against a live server with short limits.
@Suite struct ConnectionLimitTests {
    static let limits = EdgeLimits(headerTimeout: .seconds(1), bodyTimeout: .seconds(1), idleTimeout: .seconds(2))

    static func timed(_ work: () async throws -> String) async rethrows -> (String, Double) {
        let start = Date()
        let answer = try await work()
        return (answer, Date().timeIntervalSince(start))
    }

    @Test func slowHeadsSlowBodiesAndIdleConnectionsAreClosed() async throws {
        try await RawHTTP.withLiveServer(edge: Self.limits) { port in
            // Half a head, then nothing: 408 once the header timeout passes.
            let (slowHead, headTime) = try await Self.timed {
                try await RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a".utf8), closeWrite: false, untilClosed: true)
            }
            #expect(slowHead.hasPrefix("HTTP/1.1 408"), "\(slowHead)")
            #expect(slowHead.contains("application/problem+json"))
            #expect(headTime > 0.8 && headTime < 3, "\(headTime)")
            // A head, then a body that stops short: 408 from the route, and the connection closes.
            let (slowBody, bodyTime) = try await Self.timed {
                try await RawHTTP.exchange(port: port, Array("POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":".utf8),
                                     closeWrite: false, untilClosed: true)
            }
            #expect(slowBody.hasPrefix("HTTP/1.1 408"), "\(slowBody)")
            #expect(slowBody.contains("application/problem+json"))
            #expect(bodyTime > 0.8 && bodyTime < 3, "\(bodyTime)")
            // Nothing at all: closed after the idle timeout, without an answer.
            let (idle, idleTime) = try await Self.timed { try await RawHTTP.exchange(port: port, [], closeWrite: false, untilClosed: true) }
            #expect(idle.isEmpty, "\(idle)")
            #expect(idleTime > 1.8 && idleTime < 4, "\(idleTime)")
            // A keep-alive connection is idle again after each answer: a second request is served.
            let (two, _) = try await Self.timed {
                try await RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                                     closeWrite: false, untilClosed: true)
            }
            #expect(two.components(separatedBy: "HTTP/1.1 200").count == 3, "\(two)")
        }
    }

    @Test func http10ClosesAfterTheAnswerUnlessKeepAliveWasAsked() async throws {
        try await RawHTTP.withLiveServer(edge: Self.limits) { port in
            let (plain, plainTime) = try await Self.timed {
                try await RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.0\r\n\r\n".utf8), closeWrite: false, untilClosed: true)
            }
            #expect(plain.contains(" 200 "), "\(plain)")
            #expect(plain.lowercased().contains("connection: close"), "\(plain)")
            #expect(plainTime < 1, "closed after the answer, not by the idle timeout: \(plainTime)")
            let (kept, keptTime) = try await Self.timed {
                try await RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".utf8), closeWrite: false, untilClosed: true)
            }
            #expect(kept.contains(" 200 "), "\(kept)")
            #expect(keptTime > 1.8, "kept open until the idle timeout: \(keptTime)")
            // Pipelined, the second asking to close: both are answered, then the connection closes.
            let (pipelined, pipelinedTime) = try await Self.timed {
                try await RawHTTP.exchange(port: port, Array(("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").utf8), closeWrite: false, untilClosed: true)
            }
            #expect(pipelined.components(separatedBy: " 200 ").count == 3, "\(pipelined)")
            #expect(pipelinedTime < 1, "\(pipelinedTime)")
        }
    }

    @Test func headsTheParserRefusesAreProblemJSON() async throws {
        try await RawHTTP.withLiveServer { port in
            let bigHeader = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n"
            let manyHeaders = "GET /healthz HTTP/1.1\r\nHost: x\r\n" + (0..<10_000).map { "X-\($0): a\r\n" }.joined() + "\r\n"
            let hugeURL = "GET /\(String(repeating: "a", count: 1_000_000)) HTTP/1.1\r\nHost: x\r\n\r\n"
            let badByte = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u{01}b\r\n\r\n"
            for (name, text) in [("a 100 KB header", bigHeader), ("10,000 headers", manyHeaders), ("a 1 MB URL", hugeURL), ("a control byte", badByte)] {
                let answer = try await RawHTTP.exchange(port: port, Array(text.utf8), closeWrite: false)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(name): \(answer.prefix(200))")
                #expect(answer.contains("application/problem+json"), "\(name): \(answer.prefix(300))")
            }
        }
    }
}

/// A connection a test keeps open while something else happens.
final class RawSocket: Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTP.Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { Glibc.close(fd); throw RawHTTP.Failure(description: "connect: \(errno)") }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything the server sends until it closes the connection, or `timeoutSeconds` pass.
    func receiveAll(timeoutSeconds: Int) async -> String {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var answer: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                    answer += buffer[0..<n]
                }
                continuation.resume(returning: String(decoding: answer, as: UTF8.self))
            }
        }
    }

    func close() { Glibc.close(fd) }
}

@Suite struct HeadRequestTests {
    @Test func everyGetRouteAnswersHeadWithItsHeadersAndNoBody() async throws {
        try await AppHarness.with { _, http in
            let token = try #require(try await http.register("head@example.com").string("access_token"))
            let created = try await http.call(.post, "/api/v1/habits", token: token, json: #"{"name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-01-01"}"#)
            let id = try #require(created.string("id"))
            for path in ["/healthz", "/api/v1/me", "/api/v1/habits", "/api/v1/habits/\(id)", "/openapi.yaml"] {
                let get = try await http.call(.get, path, token: token)
                let head = try await http.call(.head, path, token: token)
                #expect(head.status == get.status, "\(path)")
                #expect(head.text.isEmpty, "\(path)")
                #expect(head.headers[.eTag] == get.headers[.eTag], "\(path)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(path)")
            }
            #expect(try await http.call(.head, "/api/v1/me").status == .unauthorized)
        }
    }
}
