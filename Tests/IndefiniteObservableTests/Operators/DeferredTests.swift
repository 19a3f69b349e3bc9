import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct DeferredTests {
  @Test func makesTheStreamOnEachSubscriptionAndNeverBefore() {
    var calls = 0
    let deferred = ValueObservable.deferred { () -> ValueObservable<Int> in
      calls += 1
      return Just(calls * 10)
    }
    #expect(calls == 0)
    var seen: [String] = []
    let first = deferred.subscribe { seen.append("first \($0)") }
    let second = deferred.map { $0 + 1 }.subscribe { seen.append("second \($0)") }
    #expect(seen == ["first 10", "second 21"])
    #expect(calls == 2)
    first.unsubscribe()
    second.unsubscribe()
    #expect(calls == 2)
  }

  @Test func readsStateWhenTheSubscriptionIsMadeNotWhenTheStreamIsWritten() {
    var threshold = 1
    let values = CallbackSource<Int>()
    let fixedWhenWritten = values.stream.filter { [threshold] in $0 > threshold }
    let readOnSubscribe = ValueObservable.deferred { () -> ValueObservable<Int> in
      let atSubscription = threshold
      return values.stream.filter { $0 > atSubscription }
    }
    threshold = 5
    var written: [Int] = []
    var subscribed: [Int] = []
    let early = fixedWhenWritten.subscribe { written.append($0) }
    let late = readOnSubscribe.subscribe { subscribed.append($0) }
    threshold = 100
    for value in [2, 6, 9] { values.emit(value) }
    #expect(written == [2, 6, 9])
    #expect(subscribed == [6, 9])
    early.unsubscribe()
    late.unsubscribe()
  }

  @Test func eachSubscriptionConnectsAndDisconnectsTheStreamItMade() {
    let sources = [CallbackSource<Int>(), CallbackSource<Int>()]
    var made = 0
    let deferred = ValueObservable.deferred { () -> ValueObservable<Int> in
      defer { made += 1 }
      return sources[made].stream
    }
    var seen: [String] = []
    let first = deferred.subscribe { seen.append("first \($0)") }
    let second = deferred.subscribe { seen.append("second \($0)") }
    sources[1].emit(2)
    sources[0].emit(1)
    #expect(seen == ["second 2", "first 1"])
    #expect(sources.map(\.connects) == [1, 1])
    first.unsubscribe()
    #expect(sources.map(\.disconnects) == [1, 0])
    second.unsubscribe()
    second.unsubscribe()
    #expect(sources.map(\.disconnects) == [1, 1])
    #expect(sources.map(\.observerCount) == [0, 0])
  }

  @Test func theSameStreamReturnedTwiceIsConnectedTwice() {
    let source = CallbackSource<Int>()
    let deferred = ValueObservable.deferred { source.stream }
    var seen: [Int] = []
    let first = deferred.subscribe { seen.append($0) }
    let second = deferred.subscribe { seen.append(-$0) }
    source.emit(3)
    #expect(seen == [3, -3])
    #expect(source.connects == 2)
    first.unsubscribe()
    second.unsubscribe()
    #expect(source.disconnects == 2)
  }

  @Test func valuesSentWhileConnectingArePassedOnBeforeSubscribeReturns() {
    let source = SynchronousSource([1, 2, 3])
    var seen: [Int] = []
    let subscription = ValueObservable.deferred { source.stream }.subscribe { seen.append($0) }
    #expect(seen == [1, 2, 3])
    subscription.unsubscribe()
    #expect(source.connects == 1 && source.disconnects == 1)
  }

  @Test func unsubscribingFromInsideADeliveryDisconnectsTheStream() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = ValueObservable.deferred { source.stream }.subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    source.emit(1)
    source.emit(2)
    #expect(seen == [1])
    #expect(source.observerCount == 0)
    #expect(source.connects == 1 && source.disconnects == 1)
  }

  @Test func theFactoryIsReleasedWithTheStream() {
    weak var captured: Witness?
    var deferred: ValueObservable<Int>?
    do {
      let witness = Witness()
      captured = witness
      deferred = ValueObservable.deferred { [witness] in Just(witness.received.count) }
    }
    #expect(captured != nil)
    deferred?.subscribe { _ in }.unsubscribe()
    deferred = nil
    #expect(captured == nil)
  }
}
