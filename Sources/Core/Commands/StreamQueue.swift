import Synchronization

/// Commands for one stream, within this process, one at a time and in arrival order. Appends at
/// an exact version let only one of several concurrent commands on a stream win; the others
/// would decide again and retry. Queued here, they wait for the one before them instead, and
/// each decides on what that one left: no wasted load, decide and append. (Several instances of
/// the server still meet at the append's version check, which stays the guarantee.)
///
/// A waiter whose task is cancelled leaves the queue at once with `CancellationError`: a request
/// the database wait gave up on (503) must not stay queued behind a command that is stuck, nor
/// keep the ones after it waiting (issue 24: retries queued behind a stuck first attempt never
/// got an answer).
final class StreamQueue: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var busy: Set<String> = []
        var waiting: [String: [Waiter]] = [:]
        /// Waiters cancelled before they were queued: they must not queue.
        var cancelled: Set<UInt64> = []
        var nextId: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Runs `body` when every earlier command for `stream` has finished.
    func serialized<T: Sendable>(_ stream: String, _ body: () async throws -> T) async throws -> T {
        try await acquire(stream)
        do {
            let result = try await body()
            release(stream)
            return result
        } catch {
            release(stream)
            throw error
        }
    }

    /// Waits for `stream`'s turn (`release` hands it on): for a command that holds two turns at
    /// once (`CommandPath.decidePipelined`).
    func acquire(_ stream: String) async throws {
        let id: UInt64? = state.withLock { state in
            guard state.busy.contains(stream) else {
                state.busy.insert(stream)
                return nil
            }
            state.nextId += 1
            return state.nextId
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelledAlready = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return true }
                    state.waiting[stream, default: []].append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if cancelledAlready { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard var queue = state.waiting[stream], let index = queue.firstIndex(where: { $0.id == id }) else {
                    // Not queued yet (it will see this), or already handed the stream (then it runs).
                    state.cancelled.insert(id)
                    return nil
                }
                let waiter = queue.remove(at: index)
                state.waiting[stream] = queue.isEmpty ? nil : queue
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // Handed the stream: a cancellation that came too late to matter leaves no mark.
        _ = state.withLock { $0.cancelled.remove(id) }
    }

    /// Hands the stream to the next waiter, still busy, or frees it.
    func release(_ stream: String) {
        let next: Waiter? = state.withLock { state in
            guard var queue = state.waiting[stream], !queue.isEmpty else {
                state.busy.remove(stream)
                return nil
            }
            let next = queue.removeFirst()
            state.waiting[stream] = queue.isEmpty ? nil : queue
            return next
        }
        next?.continuation.resume()
    }
}
