@testable import API
import Core
import EventStore
import Foundation
import Testing

/// The change stream's choice for each live change (`StreamOrder`): a change the client has
/// (at or before its `Last-Event-ID`, read in the catch-up, or sent live) is not sent again; one
/// older than the last sent that was never sent is sent anyway, not dropped (a dropped change is
/// one the page never shows).
@Suite struct StreamOrderTests {
    func at(_ transaction: UInt64, _ position: Int64) -> LogPosition { LogPosition(transactionId: transaction, globalPosition: position) }

    @Test func newerChangesAreSentAndTheFirstLiveChangeToo() {
        var order = StreamOrder(resumedAfter: nil)
        #expect(order.take(at(10, 5)) == .send)
        #expect(order.take(at(11, 6)) == .send)
        #expect(order.last == at(11, 6))
    }

    @Test func aChangeTheCatchUpOrTheLiveFeedAlreadySentIsADuplicate() {
        var order = StreamOrder(resumedAfter: at(9, 4))
        order.sent(at(10, 5))
        order.sent(at(12, 7))
        #expect(order.take(at(10, 5)) == .duplicate)
        #expect(order.take(at(12, 7)) == .duplicate)
        #expect(order.take(at(13, 8)) == .send)
        #expect(order.take(at(14, 9)) == .send)
        #expect(order.take(at(13, 8)) == .duplicate, "sent live before, not the last one")
    }

    @Test func aResumedClientIsNotSentWhatItHadWhenAnotherInstancesFeedCatchesUp() {
        // Resumed after 20/10 on an instance whose feed had not read 20/10 yet: the catch-up
        // brought 21/11, then the feed hands over 19/9 and 20/10, both the client's already.
        var order = StreamOrder(resumedAfter: at(20, 10))
        order.sent(at(21, 11))
        #expect(order.take(at(19, 9)) == .duplicate)
        #expect(order.take(at(20, 10)) == .duplicate)
        #expect(order.take(at(21, 11)) == .duplicate)
        #expect(order.take(at(22, 12)) == .send)
    }

    @Test func anOlderChangeNeverSentIsSentOutOfOrderOnceNotDropped() {
        // 9993 after 10002: the order the feed once delivered in, by a text sort of transaction ids.
        var order = StreamOrder(resumedAfter: nil)
        #expect(order.take(at(10_002, 1_013)) == .send)
        #expect(order.take(at(9_993, 1_011)) == .outOfOrder)
        #expect(order.take(at(9_993, 1_011)) == .duplicate)
        #expect(order.last == at(10_002, 1_013), "the resume point stays the newest")
    }

    @Test func anOutOfOrderFrameCarriesNoIdSoTheResumePointStaysTheNewest() {
        let change = ChangeFeed.Change(position: at(9_993, 1_011), ownerId: UUID(), streamId: "habit-x", type: "habit.logged")
        #expect(EventStreamArea.frame(change).hasPrefix("id: 9993/1011\n"))
        #expect(!EventStreamArea.frame(change, withId: false).contains("id:"))
    }
}
