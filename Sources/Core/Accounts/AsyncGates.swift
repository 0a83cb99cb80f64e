import Foundation

/// At most `capacity` holders per key at once; the rest wait their turn, in order. In process:
/// a second server instance has gates of its own.
public actor AsyncGates {
    var holders: [String: Int] = [:]
    var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    public init() {}

    public func run<T: Sendable>(_ key: String, capacity: Int = 1, _ body: @Sendable () async throws -> T) async throws -> T {
        await enter(key, capacity: capacity)
        do {
            let result = try await body()
            leave(key)
            return result
        } catch {
            leave(key)
            throw error
        }
    }

    func enter(_ key: String, capacity: Int) async {
        if holders[key, default: 0] < capacity {
            holders[key, default: 0] += 1
            return
        }
        // The leaver hands its place over: the holder count stays.
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    func leave(_ key: String) {
        if var queue = waiting[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[key] = queue.isEmpty ? nil : queue
            next.resume()
            return
        }
        let remaining = holders[key, default: 1] - 1
        holders[key] = remaining > 0 ? remaining : nil
    }
}
