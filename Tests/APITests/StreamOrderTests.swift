@testable import API
import EventStore
import Testing

/// The change stream's choice for each live change (`StreamOrder`): a change heard twice (read
/// in the catch-up, then live) is sent once; one older than the last sent that was never sent
/// is sent anyway, not dropped (a dropped change is one the page never shows).
@Suite struct StreamOrderTests {
    func at(_ transaction: UInt64, _ position: Int64) -> LogPosition { LogPosition(transactionId: transaction, globalPosition: position) }

    @Test func newerChangesAreSentAndTheFirstLiveChangeToo() {
        #expect(StreamOrder.of(at(10, 5), last: nil, caughtUp: []) == .send)
        #expect(StreamOrder.of(at(11, 6), last: at(10, 5), caughtUp: []) == .send)
    }

    @Test func aChangeTheCatchUpOrTheLastFrameCarriedIsADuplicate() {
        let caughtUp: Set = [at(10, 5), at(12, 7)]
        #expect(StreamOrder.of(at(10, 5), last: at(12, 7), caughtUp: caughtUp) == .duplicate)
        #expect(StreamOrder.of(at(12, 7), last: at(12, 7), caughtUp: caughtUp) == .duplicate)
    }

    @Test func anOlderChangeNeverSentIsSentOutOfOrderNotDropped() {
        // 9993 after 10002: the order the feed once delivered in, by a text sort of transaction ids.
        #expect(StreamOrder.of(at(9_993, 1_011), last: at(10_002, 1_013), caughtUp: [at(10_002, 1_013)]) == .outOfOrder)
    }
}
