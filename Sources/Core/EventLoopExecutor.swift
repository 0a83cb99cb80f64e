import Foundation
import NIOCore
import NIOPosix

/// Runs Swift concurrency's jobs on NIO's event loops (the threads that already do the sockets'
/// I/O) instead of a pool of their own. Without it every database round trip crosses threads
/// twice (the task's thread hands the request to an event loop, which wakes another thread with
/// the answer): a prepared `SELECT 1` took 135–200 µs against libpq's 67–84 µs on the benchmark
/// machine, 113–127 µs with it, and sequential appends went from 2,075–2,125 to 2,165–2,272 a
/// second (issue 10). Both have one thread per core. Work here must not block: blocking work
/// goes to `NIOThreadPool` (password hashing, webhook DNS).
public enum EventLoopExecutor {
    /// Call first in `main`, once, on the main thread; false where NIO cannot take over, or when
    /// `LIFELOG_EXECUTOR=swift` keeps Swift's own pool (to compare, or if a dependency blocks).
    @discardableResult
    public static func install(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment["LIFELOG_EXECUTOR"] == "swift" { return false }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
