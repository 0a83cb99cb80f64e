/// Commands for one stream, within this process, one at a time and in arrival order. Appends at
/// an exact version let only one of several concurrent commands on a stream win; the others
/// would decide again and retry. Queued here, they wait for the one before them instead, and
/// each decides on what that one left: no wasted load, decide and append. (Several instances of
/// the server still meet at the append's version check, which stays the guarantee.)
actor StreamQueue {
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` when every earlier command for `stream` has finished.
    nonisolated func serialized<T: Sendable>(_ stream: String, _ body: () async throws -> T) async throws -> T {
        await acquire(stream)
        do {
            let result = try await body()
            await release(stream)
            return result
        } catch {
            await release(stream)
            throw error
        }
    }

    private func acquire(_ stream: String) async {
        guard busy.contains(stream) else {
            busy.insert(stream)
            return
        }
        await withCheckedContinuation { waiting[stream, default: []].append($0) }
    }

    /// Hands the stream to the next waiter, still busy, or frees it.
    private func release(_ stream: String) {
        guard var queue = waiting[stream], !queue.isEmpty else {
            busy.remove(stream)
            return
        }
        let next = queue.removeFirst()
        waiting[stream] = queue.isEmpty ? nil : queue
        next.resume()
    }
}
