import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct PrefixWhileTests {
  @Test func passesValuesWhileThePredicateHoldsThenNothing() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.prefix(while: { $0 < 4 }).subscribe { seen.append($0) }
    for value in [1, 2, 5, 3, 1] { source.emit(value) }
    #expect(seen == [1, 2])
    subscription.unsubscribe()
  }

  @Test func theFirstFailingValueDisconnectsTheSourceAndThePredicateRunsNoMore() {
    let source = CallbackSource<Int>()
    var tested: [Int] = []
    let subscription = source.stream.prefix(while: { value in
      tested.append(value)
      return value < 4
    }).subscribe { _ in }
    source.emit(1)
    #expect(source.disconnects == 0)
    source.emit(5)
    #expect(source.disconnects == 1 && source.observerCount == 0)
    source.emit(2)
    #expect(tested == [1, 5])
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func aStreamThatSendsWhileConnectingIsDisconnectedBeforeSubscribeReturns() {
    let source = SynchronousSource([1, 2, 9, 3])
    var seen: [Int] = []
    let subscription = source.stream.prefix(while: { $0 < 4 }).subscribe { seen.append($0) }
    #expect(seen == [1, 2])
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func unsubscribingBeforeAValueFailsDisconnectsOnce() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.prefix(while: { $0 < 4 }).subscribe { seen.append($0) }
    source.emit(1)
    subscription.unsubscribe()
    subscription.unsubscribe()
    source.emit(2)
    #expect(seen == [1])
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.prefix(while: { $0 < 4 }).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    for value in [1, 2, 3] { source.emit(value) }
    #expect(seen == [1])
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  @Test func eachSubscriptionTestsItsOwnValues() {
    let source = CallbackSource<Int>()
    let small = source.stream.prefix(while: { $0 < 4 })
    var first: [Int] = []
    var second: [Int] = []
    let early = small.subscribe { first.append($0) }
    source.emit(9)
    let late = small.subscribe { second.append($0) }
    source.emit(1)
    source.emit(2)
    #expect(first == [])
    #expect(second == [1, 2])
    #expect(source.connects == 2 && source.disconnects == 1)
    early.unsubscribe()
    late.unsubscribe()
    #expect(source.disconnects == 2)
  }

  /// A failing value, on a thread of its own, races `unsubscribe()` on this one: the source is
  /// disconnected exactly once, whichever wins.
  @Test func aFailingValueAndUnsubscribeOnTwoThreadsDisconnectOnce() {
    for _ in 0..<200 {
      let source = ThreadSafeSource<Int>()
      let subscription = source.stream.prefix(while: { $0 < 4 }).subscribe { _ in }
      let sent = startThread { source.emit(9) }
      subscription.unsubscribe()
      sent.wait()
      #expect(source.disconnects == 1 && source.observerCount == 0)
    }
  }
}
