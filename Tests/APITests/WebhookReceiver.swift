import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A webhook receiver on loopback for tests: records every request and answers with the
/// statuses it is given, in order (then 204).
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var id: String
        var timestamp: String
        var signature: String
        var body: String
        /// The client's port: one per connection the pushes came on.
        var peerPort: Int?
    }

    /// The request context with the connection's peer, so a test can count connections.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let peerPort: Int?

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            peerPort = source.channel.remoteAddress?.port
        }
    }

    let received = Mutex<[Received]>([])
    let statuses: Mutex<[Int]>
    let port = Mutex<Int?>(nil)

    init(statuses: [Int] = []) {
        self.statuses = Mutex(statuses)
    }

    struct NotListening: Error {}

    var requests: [Received] { received.withLock { $0 } }

    /// Runs `body` with the receiver listening; passes its URL.
    static func with(statuses: [Int] = [], _ body: @Sendable (WebhookReceiver, String) async throws -> Void) async throws {
        let receiver = WebhookReceiver(statuses: statuses)
        let router = Router(context: Context.self)
        router.post("hook") { request, context -> Response in
            var request = request
            let text = String(buffer: try await request.collectBody(upTo: 1 << 20))
            let headers = request.headers
            func header(_ name: String) -> String { HTTPField.Name(name).flatMap { headers[$0] } ?? "" }
            receiver.received.withLock {
                $0.append(Received(id: header("webhook-id"), timestamp: header("webhook-timestamp"), signature: header("webhook-signature"), body: text,
                                  peerPort: context.peerPort))
            }
            let status = receiver.statuses.withLock { $0.isEmpty ? 204 : $0.removeFirst() }
            // 999: a receiver that takes its time (5 s) before a 204.
            if status == 999 {
                try await Task.sleep(for: .seconds(5))
                return Response(status: .noContent)
            }
            // 997: a 200 with a short body.
            if status == 997 { return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"ok":true}"#))) }
            // 996: a 200, 998: a 500, whose body comes a byte a second.
            if status == 996 || status == 998 {
                return Response(status: status == 996 ? .ok : .internalServerError, body: ResponseBody { writer in
                    for _ in 0..<10 {
                        try await writer.write(ByteBuffer(string: "x"))
                        try await Task.sleep(for: .seconds(1))
                    }
                    try await writer.finish(nil)
                })
            }
            return Response(status: .init(code: status))
        }
        var logger = Logger(label: "receiver")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in receiver.port.withLock { $0 = channel.localAddress?.port } }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var waited = 0
            while receiver.port.withLock({ $0 }) == nil, waited < 500 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            guard let port = receiver.port.withLock({ $0 }) else { throw NotListening() }
            try await body(receiver, "http://127.0.0.1:\(port)/hook")
            group.cancelAll()
        }
    }
}
