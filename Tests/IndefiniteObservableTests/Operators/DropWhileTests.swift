import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct DropWhileTests {
  @Test func dropsValuesWhileThePredicateHoldsThenPassesEveryValue() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.drop(while: { $0 < 4 }).subscribe { seen.append($0) }
    for value in [1, 2, 5, 3, 1] { source.emit(value) }
    #expect(seen == [5, 3, 1])
    subscription.unsubscribe()
  }

  @Test func thePredicateRunsNoMoreOnceAValueHasFailed() {
    let source = CallbackSource<Int>()
    var tested: [Int] = []
    let subscription = source.stream.drop(while: { value in
      tested.append(value)
      return value < 4
    }).subscribe { _ in }
    for value in [1, 5, 2, 3] { source.emit(value) }
    #expect(tested == [1, 5])
    subscription.unsubscribe()
  }

  @Test func valuesSentWhileConnectingAreTestedLikeAnyOther() {
    let source = SynchronousSource([1, 7, 2])
    var seen: [Int] = []
    let subscription = source.stream.drop(while: { $0 < 4 }).subscribe { seen.append($0) }
    #expect(seen == [7, 2])
    #expect(source.disconnects == 0)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.drop(while: { $0 < 4 }).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    for value in [1, 5, 6, 7] { source.emit(value) }
    #expect(seen == [5])
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  @Test func eachSubscriptionTestsItsOwnValues() {
    let source = CallbackSource<Int>()
    let large = source.stream.drop(while: { $0 < 4 })
    var first: [Int] = []
    var second: [Int] = []
    let early = large.subscribe { first.append($0) }
    source.emit(9)
    let late = large.subscribe { second.append($0) }
    source.emit(1)
    source.emit(8)
    #expect(first == [9, 1, 8])
    #expect(second == [8])
    early.unsubscribe()
    late.unsubscribe()
    #expect(source.connects == 2 && source.disconnects == 2)
  }
}
