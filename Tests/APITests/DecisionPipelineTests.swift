@testable import Core
import Testing

/// The record `CommandPath.decidePipelined` keeps per stream: which decided commands a read has
/// not seen, where the next command is appended, and that a command decided on one that never
/// reached the log is decided again, never appended as it was.
@Suite struct DecisionPipelineTests {
    let stream = "health-samples-test"

    /// Pushes a command of `count` events decided on a read at `version`.
    func decide(_ pipeline: DecisionPipeline, readAt version: Int64, events: [String]) throws -> (id: UInt64, basis: DecisionPipeline.Basis) {
        let basis = try #require(pipeline.basis(stream, readAt: version, fresh: false))
        let id = try #require(pipeline.push(stream, on: basis, leaves: basis.expected + Int64(events.count), decided: events))
        return (id, basis)
    }

    func pending(_ basis: DecisionPipeline.Basis?) -> [[String]] {
        (basis?.pending ?? []).map { $0 as? [String] ?? ["?"] }
    }

    @Test func aReadMadeBeforeTheCommandsAheadWereStoredFoldsThemAndAppendsAfterTheLast() async throws {
        let pipeline = DecisionPipeline()
        try await pipeline.active(stream) {
            let a = try decide(pipeline, readAt: 10, events: ["a1", "a2"])
            #expect(a.basis.expected == 10 && pending(a.basis).isEmpty)
            // B is decided while A is being appended, on a read that did not see A.
            let b = try decide(pipeline, readAt: 10, events: ["b1"])
            #expect(b.basis.expected == 12 && pending(b.basis) == [["a1", "a2"]])
            pipeline.stored(stream, a.id)
            // A read made before A was stored still folds A and B; one made after folds only B.
            #expect(pending(pipeline.basis(stream, readAt: 10, fresh: false)) == [["a1", "a2"], ["b1"]])
            #expect(pending(pipeline.basis(stream, readAt: 12, fresh: false)) == [["b1"]])
            #expect(pipeline.basis(stream, readAt: 12, fresh: false)?.expected == 13)
            pipeline.stored(stream, b.id)
            // A read that saw everything folds nothing.
            #expect(pipeline.basis(stream, readAt: 13, fresh: false).map(pending) == [])
        }
    }

    @Test func aCommandDecidedOnOneThatWasNotStoredIsDoomedAndTheRestStartAgain() async throws {
        let pipeline = DecisionPipeline()
        try await pipeline.active(stream) {
            let a = try decide(pipeline, readAt: 0, events: ["a"])
            let b = try decide(pipeline, readAt: 0, events: ["b"])
            let c = try decide(pipeline, readAt: 1, events: ["c"])
            #expect(c.basis.expected == 2 && pending(c.basis) == [["b"]])
            // A's append lost to another writer: B and C stood on A.
            pipeline.failed(stream, a.id)
            #expect(pipeline.isDoomed(b.id) && pipeline.isDoomed(c.id))
            #expect(!pipeline.isDoomed(b.id), "asked once, in its turn")
            // Nothing is left to fold: a read at A's version is taken as it is, and a command
            // decided on a basis taken before the failure is not recorded.
            let stale = DecisionPipeline.Basis(pending: [], expected: 0, failures: a.basis.failures)
            #expect(pipeline.push(stream, on: stale, leaves: 1, decided: ["late"]) == nil)
            #expect(try #require(pipeline.basis(stream, readAt: 3, fresh: false)).expected == 3)
        }
    }

    @Test func aReadPastStoredCommandsStartsTheListAgainButNotPastOnesInFlight() async throws {
        let pipeline = DecisionPipeline()
        try await pipeline.active(stream) {
            let a = try decide(pipeline, readAt: 5, events: ["a"])
            // A is in flight: a read at another version is read again, then decided in its turn.
            #expect(pipeline.basis(stream, readAt: 9, fresh: false) == nil)
            #expect(pipeline.basis(stream, readAt: 9, fresh: true) == nil)
            pipeline.stored(stream, a.id)
            // A is stored and another writer appended after it: a fresh read is the basis.
            #expect(pipeline.basis(stream, readAt: 9, fresh: false) == nil)
            let b = try #require(pipeline.basis(stream, readAt: 9, fresh: true))
            #expect(b.expected == 9 && pending(b).isEmpty)
            let pushed = try #require(pipeline.push(stream, on: b, leaves: 10, decided: ["b"]))
            #expect(pending(pipeline.basis(stream, readAt: 9, fresh: false)) == [["b"]])
            #expect(pipeline.basis(stream, readAt: 5, fresh: false) == nil, "A's entry left with the restart")
            pipeline.stored(stream, pushed)
        }
    }

    @Test func storedCommandsAreKeptOnlyAsFarBackAsTheHistoryAndAnIdleStreamHoldsNothing() async throws {
        let pipeline = DecisionPipeline()
        try await pipeline.active(stream) {
            for version in 0..<Int64(DecisionPipeline.history + 3) {
                let entry = try decide(pipeline, readAt: version, events: ["e\(version)"])
                pipeline.stored(stream, entry.id)
            }
            let newest = Int64(DecisionPipeline.history + 3)
            #expect(pipeline.basis(stream, readAt: newest - Int64(DecisionPipeline.history), fresh: false)?.pending.count == DecisionPipeline.history)
            #expect(pipeline.basis(stream, readAt: newest - Int64(DecisionPipeline.history) - 1, fresh: false) == nil)
        }
        // No command of the stream is active: its list is gone, and nothing can be pushed
        // outside `active` (the command is then decided in its turn).
        let basis = try #require(pipeline.basis(stream, readAt: 2, fresh: false))
        #expect(basis.expected == 2 && basis.pending.isEmpty)
        #expect(pipeline.push(stream, on: basis, leaves: 3, decided: ["x"]) == nil)
    }
}
