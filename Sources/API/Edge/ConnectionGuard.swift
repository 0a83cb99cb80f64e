import Core
import Foundation
import NIOCore
import NIOHTTP1

/// The time limits of one HTTP/1.1 connection, and what HTTP/1.0 asks of it.
///
/// - Idle: from the end of an answer (or the connection's start) to the first byte of the next
///   request; then the connection is closed, quietly.
/// - Header: from a request's first byte to the end of its head; then 408, and the connection is closed.
/// - Body: the longest gap between a body's parts (and ten times that in all); then the
///   handler's read of the body fails, the answer is 408, and the connection is closed after it.
/// - A request that is not keep-alive (HTTP/1.0 without `Connection: keep-alive`, or
///   `Connection: close`) closes the connection after its answer.
/// - A head the parser refuses (a header too large, too many headers, a bad byte) is a 400
///   problem+json rather than an empty 400.
///
/// Sits right after NIO's request decoder, where the HTTP version is still known. Everything
/// here runs on the channel's event loop.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request's body took longer than the body timeout: the handler's read fails with this.
    struct BodyTimedOut: Error {}

    /// What the timer is counting: nothing (a request is being handled), the wait for a request,
    /// a head arriving, or a body arriving.
    enum Phase { case handling, idle, head, body }

    let limits: EdgeLimits
    var phase = Phase.idle
    var timer: Scheduled<Void>?
    /// One entry per request read and not yet answered (pipelined requests queue here), in
    /// order: whether the connection closes after its answer.
    var unanswered: [Bool] = []
    /// Between a request's head and the end of its body.
    var reading = false
    var bodyStarted = ContinuousClock.now
    var answering = false

    init(limits: EdgeLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { schedule(context, after: limits.idleTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil { schedule(context, after: limits.idleTimeout) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is RequestBytesWatch.Started else { return context.fireUserInboundEventTriggered(event) }
        if phase == .idle {
            phase = .head
            schedule(context, after: limits.headerTimeout)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            reading = true
            bodyStarted = .now
            phase = .body
            schedule(context, after: limits.bodyTimeout)
            unanswered.append(!head.isKeepAlive)
            if !head.isKeepAlive {
                // Hummingbird closes after the answer to a request that says `Connection: close`.
                head.headers.replaceOrAdd(name: "connection", value: "close")
                context.fireChannelRead(wrapInboundOut(.head(head)))
                return
            }
        case .body:
            // The body timeout is the longest gap between its parts, within an overall cap, so a
            // large upload on a slow link goes on while a trickle cannot hold the connection.
            if phase == .body, ContinuousClock.now - bodyStarted < limits.bodyTimeout * 10 {
                schedule(context, after: min(limits.bodyTimeout, limits.bodyTimeout * 10 - (ContinuousClock.now - bodyStarted)))
            }
        case .end:
            reading = false
            if unanswered.isEmpty {
                // Answered before its body ended (a 413): wait for the next request.
                context.fireChannelRead(data)
                becomeIdle(context)
                return
            }
            phase = .handling
            cancelTimer()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            answering = true
            if unanswered.first == true {
                head.headers.replaceOrAdd(name: "connection", value: "close")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
        case .body:
            break
        case .end:
            answering = false
            let close = unanswered.isEmpty ? false : unanswered.removeFirst()
            if close {
                // Closed once every byte is out: closing at once would drop what the socket has not sent.
                let written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in context.close(promise: nil) }
                if let promise { written.futureResult.cascade(to: promise) }
                context.writeAndFlush(data, promise: written)
                return
            }
            context.write(data, promise: promise)
            if unanswered.isEmpty, !reading { becomeIdle(context) }
            return
        }
        context.write(data, promise: promise)
    }

    /// Waits for the next request: its first byte starts its header timeout.
    func becomeIdle(_ context: ChannelHandlerContext) {
        phase = .idle
        schedule(context, after: limits.idleTimeout)
        context.triggerUserOutboundEvent(RequestBytesWatch.Rearm(), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A head the parser refused while no request of this connection is in hand: nothing
        // else would answer it but with an empty 400.
        if error is HTTPParserError, unanswered.isEmpty, !reading, !answering {
            refuse(context, status: .badRequest, title: "Bad request",
                   detail: "The request is not valid HTTP/1.1 (\(error)); headers are limited to 80 KiB and 1,000 fields.")
            return
        }
        context.fireErrorCaught(error)
    }

    func schedule(_ context: ChannelHandlerContext, after limit: Duration) {
        cancelTimer()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limit)) { [self] in
            timer = nil
            timedOut(context)
        }
    }

    func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    func timedOut(_ context: ChannelHandlerContext) {
        switch phase {
        case .idle:
            context.close(promise: nil)
        case .head:
            if unanswered.isEmpty, !answering {
                refuse(context, status: .requestTimeout, title: "Request timeout",
                       detail: "The request's headers did not arrive within \(limits.headerTimeout.seconds) s.")
            } else {
                context.close(promise: nil)
            }
        case .body:
            // The handler is reading the body: its read fails, it answers 408, and the
            // connection closes after that answer; if it cannot, the connection closes anyway.
            if !unanswered.isEmpty { unanswered[unanswered.count - 1] = true }
            context.fireErrorCaught(BodyTimedOut())
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(5)) { context.close(promise: nil) }
        case .handling:
            break
        }
    }

    /// Answers with a problem+json and closes the connection (no request is being handled).
    func refuse(_ context: ChannelHandlerContext, status: HTTPResponseStatus, title: String, detail: String) {
        let problem = Problem(type: Problem.base + (status == .requestTimeout ? "request-timeout" : "malformed-request"),
                              title: title, status: Int(status.code), detail: detail)
        let body = ByteBuffer(bytes: (try? AppRequestContext.makeEncoder().encode(problem)) ?? Data())
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/problem+json")
        headers.add(name: "content-length", value: String(body.readableBytes))
        headers.add(name: "connection", value: "close")
        cancelTimer()
        phase = .handling
        answering = true
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

/// First in the pipeline, where bytes arrive: tells `ConnectionGuard` when the first byte of a
/// request comes, so that a slow head runs into the header timeout rather than the idle one.
final class RequestBytesWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    struct Started {}
    struct Rearm {}

    var armed = true

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if armed {
            armed = false
            context.fireUserInboundEventTriggered(Started())
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Rearm else { return context.triggerUserOutboundEvent(event, promise: promise) }
        armed = true
        promise?.succeed()
    }
}

extension Duration {
    /// Whole seconds, or seconds with a fraction, for a sentence.
    var seconds: String {
        let (whole, atto) = components
        return atto == 0 ? String(whole) : String(Double(whole) + Double(atto) / 1e18)
    }
}
