import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// The spellings that the sendable sources lacked while each source wrote its own (issue 31): each
/// test failed to compile before the front was written once.
@MainActor
@Suite struct SendableSourceGapsTests {
  @Test func aSendableEmitterOfVoidSendsWithNoArgument() {
    let didTap = SendableEmitter<Void>()
    var taps = 0
    didTap.subscribe { taps += 1 }
    didTap.send()
    didTap.send()
    #expect(taps == 2)
    #expect(didTap.sendCount == 2)
  }

  @Test func aSendableCurrentValueCountsItsWritesAndResetsTheCount() {
    let level = SendableCurrentValue(0)
    level.value = 1
    level.send(2)
    level.update { $0 += 1 }
    #expect(level.sendCount == 3)
    level.resetSendCount()
    #expect(level.sendCount == 0)
  }

  @Test func aSendableCurrentValueRefusesAMaxSubscribersBelowItsCount() throws {
    let level = SendableCurrentValue(0)
    #expect(level.maxSubscribers == 100)
    let first = level.subscribe { _ in }
    let second = level.subscribe { _ in }
    #expect(throws: MaxSubscribersBelowCount(requested: 1, subscriberCount: 2)) {
      try level.setMaxSubscribers(1)
    }
    try level.setMaxSubscribers(2)
    #expect(level.maxSubscribers == 2)
    level.maxSubscribers = 5
    #expect(level.maxSubscribers == 5)
    first.unsubscribe()
    second.unsubscribe()
  }

  @Test func aSendableCurrentValuesValuesStartWithTheCurrentValueUnlessAskedNotTo() {
    let level = SendableCurrentValue(1)
    var all: [Int] = []
    var later: [Int] = []
    let a = level.stream().subscribe { all.append($0) }
    let b = level.stream(replayingLast: false).map { $0 * 10 }.subscribe { later.append($0) }
    level.value = 2
    #expect(all == [1, 2])
    #expect(later == [20])
    a.unsubscribe()
    b.unsubscribe()
  }

  @Test func aSendableCurrentValueBindsAnOwnerOnAQueue() async {
    final class Sink: Sendable {
      let seen = LockedState<[Int]>([])
    }
    let level = SendableCurrentValue(1)
    let sink = Sink()
    let queue = DispatchQueue(label: "SendableSourceGapsTests")
    level.subscribe(sink, on: queue) { sink, value in sink.seen.withLock { $0.append(value) } }
    level.subscribe(sink, on: .sendingThread) { sink, value in
      sink.seen.withLock { $0.append(value * 100) }
    }
    level.value = 2
    #expect(await eventually { sink.seen.withLock { $0.sorted() } == [1, 2, 100, 200] })
    level.unsubscribe(sink)
    #expect(level.subscriberCount == 0)
  }

  @Test func theSendableSourcesCombineTheLatestOfThreeStreams() {
    let a = SendableEmitter<Int>()
    let b = Emitter<String>()
    let c = SendableCurrentValue(true)
    var seen: [String] = []
    let subscription = a.stream().combineLatest(b, c.stream()).subscribe {
      seen.append("\($0.0)\($0.1)\($0.2)")
    }
    a.send(1)
    b.send("x")
    a.send(2)
    #expect(seen == ["1xtrue", "2xtrue"])
    subscription.unsubscribe()
    let triple = c.stream().combineLatest(a.stream(), b).subscribe {
      seen.append("\($0.0)\($0.1)\($0.2)")
    }
    a.send(3)
    b.send("y")
    #expect(seen == ["1xtrue", "2xtrue", "true3y"])
    triple.unsubscribe()
  }

  @Test func aSendableSourcePrependsValuesGivenOneByOne() {
    let a = SendableEmitter<Int>()
    var seen: [Int] = []
    let subscription = a.stream().prepend(1, 2).subscribe { seen.append($0) }
    a.send(3)
    #expect(seen == [1, 2, 3])
    subscription.unsubscribe()
  }
}
