import Foundation
import NIOCore
import NIOPosix

/// With `LIFELOG_EXECUTOR=nio`, Swift concurrency's jobs run on NIO's event loops (the threads
/// that already do the sockets' I/O) instead of a pool of their own, so a database round trip
/// does not cross threads twice. Measured on the benchmark machine (issue 10): a prepared
/// `SELECT 1` took 135–200 µs, 113–127 µs on the loops (libpq: 67–84 µs); sequential appends
/// gained 5–8 %, appends with inline projectors 12 %, Today's p99 fell from 18 to 12 ms. But
/// work that computes for long holds back the I/O of every connection on its loop: storing a
/// million health samples took 63.9 s against 56.6 s, re-sending them 26.2 s against 12.9 s,
/// an import 55.2 s against 43.7 s. So Swift's own pool stays the default.
public enum EventLoopExecutor {
    /// Call first in `main`, once, on the main thread; true when the event loops took over.
    @discardableResult
    public static func install(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard environment["LIFELOG_EXECUTOR"] == "nio" else { return false }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
