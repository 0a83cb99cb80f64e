import Core
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1.1 channel with `ConnectionGuard` and `RequestBytesWatch` in its pipeline.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel
    let limits: EdgeLimits

    init(responder: @escaping HTTPChannelHandler.Responder, limits: EdgeLimits) {
        inner = HTTP1Channel(responder: responder)
        self.limits = limits
    }

    var responder: HTTPChannelHandler.Responder { inner.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(ConnectionGuard(limits: limits), position: .after(decoder))
            try operations.addHandler(RequestBytesWatch(), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the edge's time limits (`EdgeLimits`).
    static func guardedHTTP1(_ limits: EdgeLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits) }
    }
}
