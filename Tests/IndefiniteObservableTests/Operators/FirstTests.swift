import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct FirstTests {
  @Test func passesTheFirstValueThenDisconnects() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var observersWhenDelivered: [Int] = []
    let subscription = source.stream.first().subscribe {
      seen.append($0)
      observersWhenDelivered.append(source.observerCount)
    }
    for value in 1...3 { source.emit(value) }
    #expect(seen == [1])
    #expect(observersWhenDelivered == [0])
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func aStreamThatSendsWhileConnectingIsDisconnectedBeforeSubscribeReturns() {
    let source = SynchronousSource([1, 2, 3])
    var seen: [Int] = []
    let subscription = source.stream.first().subscribe { seen.append($0) }
    #expect(seen == [1])
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func firstWherePassesTheFirstMatchingValueThenDisconnects() {
    let source = CallbackSource<Int>()
    var tested: [Int] = []
    var seen: [Int] = []
    let subscription = source.stream.first(where: { value in
      tested.append(value)
      return value.isMultiple(of: 2)
    }).subscribe { seen.append($0) }
    source.emit(1)
    source.emit(3)
    #expect(source.disconnects == 0)
    source.emit(4)
    source.emit(6)
    #expect(seen == [4])
    #expect(tested == [1, 3, 4])
    #expect(source.disconnects == 1 && source.observerCount == 0)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func firstWhereWithNoMatchStaysConnectedUntilUnsubscribed() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.first(where: { $0 > 10 }).subscribe { seen.append($0) }
    for value in 1...3 { source.emit(value) }
    #expect(seen == [])
    #expect(source.observerCount == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1 && source.observerCount == 0)
  }

  @Test func unsubscribingFromInsideADeliveryDisconnectsOnce() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var firstSubscription: Subscription?
    firstSubscription = source.stream.first().subscribe { value in
      seen.append(value)
      firstSubscription?.unsubscribe()
    }
    var matching: [Int] = []
    var whereSubscription: Subscription?
    whereSubscription = source.stream.first(where: { $0 > 1 }).subscribe { value in
      matching.append(value)
      whereSubscription?.unsubscribe()
    }
    for value in 1...4 { source.emit(value) }
    #expect(seen == [1])
    #expect(matching == [2])
    #expect(source.connects == 2 && source.disconnects == 2)
    #expect(source.observerCount == 0)
  }

  @Test func eachSubscriptionGetsItsOwnFirstValue() {
    let source = CallbackSource<Int>()
    let firstValue = source.stream.first()
    var early: [Int] = []
    var late: [Int] = []
    let a = firstValue.subscribe { early.append($0) }
    source.emit(1)
    let b = firstValue.subscribe { late.append($0) }
    source.emit(2)
    source.emit(3)
    #expect(early == [1])
    #expect(late == [2])
    #expect(source.connects == 2 && source.disconnects == 2)
    a.unsubscribe()
    b.unsubscribe()
  }
}
