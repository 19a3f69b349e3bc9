import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct SwitchToLatestTests {
  @Test func passesOnTheValuesOfTheLatestStreamOnly() {
    let streams = CallbackSource<ValueObservable<Int>>()
    let first = CallbackSource<Int>()
    let second = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = streams.stream.switchToLatest().subscribe { seen.append($0) }
    first.emit(0)
    streams.emit(first.stream)
    first.emit(1)
    streams.emit(second.stream)
    first.emit(2)
    second.emit(3)
    #expect(seen == [1, 3])
    subscription.unsubscribe()
  }

  @Test func switchesBetweenEmitters() {
    let streams = CallbackSource<Emitter<Int>>()
    let first = Emitter<Int>()
    let second = Emitter<Int>()
    var seen: [Int] = []
    let subscription = streams.stream.switchToLatest().subscribe { seen.append($0) }
    streams.emit(first)
    first.send(1)
    streams.emit(second)
    first.send(2)
    second.send(3)
    #expect(seen == [1, 3])
    #expect(first.subscriberCount == 0)
    subscription.unsubscribe()
    #expect(second.subscriberCount == 0)
  }

  @Test func disconnectsThePreviousStreamBeforeConnectingTheNext() {
    let streams = CallbackSource<ValueObservable<Int>>()
    let first = CallbackSource<Int>()
    var firstObserversWhenSecondConnected: Int?
    let second = ValueObservable<Int> { _ in
      firstObserversWhenSecondConnected = first.observerCount
      return noopDisconnect
    }
    let subscription = streams.stream.switchToLatest().subscribe { _ in }
    streams.emit(first.stream)
    #expect(first.observerCount == 1)
    streams.emit(second)
    #expect(firstObserversWhenSecondConnected == 0)
    #expect(first.disconnects == 1)
    subscription.unsubscribe()
  }

  /// The subscriber reacts to an older stream's first value by bringing in a newer stream while
  /// the older one is still sending on connect: the older one's later values are dropped, and it
  /// is disconnected as soon as its connect returns.
  @Test func anOlderStreamsValuesAreDroppedOnceANewerOneHasArrived() {
    let streams = CallbackSource<ValueObservable<Int>>()
    let older = SynchronousSource([1, 2, 3])
    let newer = SynchronousSource([10])
    var seen: [Int] = []
    let subscription = streams.stream.switchToLatest().subscribe { value in
      seen.append(value)
      if value == 1 { streams.emit(newer.stream) }
    }
    streams.emit(older.stream)
    #expect(seen == [1, 10])
    #expect(older.disconnects == 1)
    #expect(newer.disconnects == 0)
    subscription.unsubscribe()
    #expect(newer.disconnects == 1)
  }

  @Test func theSameStreamDeliveredAgainIsConnectedAgain() {
    let streams = CallbackSource<ValueObservable<Int>>()
    let inner = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = streams.stream.switchToLatest().subscribe { seen.append($0) }
    streams.emit(inner.stream)
    streams.emit(inner.stream)
    inner.emit(1)
    #expect(seen == [1])
    #expect(inner.connects == 2 && inner.disconnects == 1)
    subscription.unsubscribe()
  }

  @Test func unsubscribeDisconnectsTheOuterAndTheLatestStream() {
    let streams = CallbackSource<ValueObservable<Int>>()
    let inner = CallbackSource<Int>()
    let subscription = streams.stream.switchToLatest().subscribe { _ in }
    streams.emit(inner.stream)
    subscription.unsubscribe()
    #expect(streams.observerCount == 0)
    #expect(inner.observerCount == 0)
    #expect(inner.disconnects == 1)
  }

  /// As Combine's: the latest inner stream is disconnected first, while the outer stream is
  /// still connected, then the outer one.
  @Test func unsubscribeDisconnectsTheLatestStreamBeforeTheOuterOne() {
    let streams = CallbackSource<ValueObservable<Int>>()
    var order: [String] = []
    var outerObserversWhenInnerEnded: Int?
    let inner = ValueObservable<Int> { _ in
      return {
        order.append("inner")
        outerObserversWhenInnerEnded = streams.observerCount
      }
    }
    let outer = ValueObservable<ValueObservable<Int>> { observer in
      let disconnect = streams.stream.subscribe(observer.next)
      return {
        order.append("outer")
        disconnect.unsubscribe()
      }
    }
    let subscription = outer.switchToLatest().subscribe { _ in }
    streams.emit(inner)
    subscription.unsubscribe()
    #expect(order == ["inner", "outer"])
    #expect(outerObserversWhenInnerEnded == 1)
  }

  /// Unsubscribing from inside a delivery of the latest stream ends both, inner first, and
  /// nothing more is passed on.
  @Test func unsubscribeFromInsideADeliveryEndsBothInnerFirst() {
    let streams = CallbackSource<ValueObservable<Int>>()
    let inner = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = streams.stream.switchToLatest().subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    streams.emit(inner.stream)
    inner.emit(1)
    inner.emit(2)
    streams.emit(inner.stream)
    #expect(seen == [1])
    #expect(inner.observerCount == 0 && streams.observerCount == 0)
    #expect(inner.connects == 1 && inner.disconnects == 1)
  }

  @Test func eachSubscriptionConnectsItsOwnStreams() {
    let streams = CallbackSource<ValueObservable<Int>>()
    let inner = CallbackSource<Int>()
    let latest = streams.stream.switchToLatest()
    var first: [Int] = []
    var second: [Int] = []
    let early = latest.subscribe { first.append($0) }
    streams.emit(inner.stream)
    let late = latest.subscribe { second.append($0) }
    inner.emit(1)
    #expect(first == [1])
    #expect(second == [])
    #expect(inner.observerCount == 1)
    early.unsubscribe()
    late.unsubscribe()
  }

  /// One thread delivers new streams while another unsubscribes: whichever inner stream was
  /// connecting when the subscription ended is disconnected, never left connected.
  @Test func noInnerStreamStaysConnectedAfterUnsubscribeOnAnotherThread() {
    for _ in 0..<100 {
      let streams = ThreadSafeSource<Int>()
      let inners = (0..<20).map { _ in ThreadSafeSource<Int>() }
      // `nonisolated(unsafe)`: what the test checks is that a chain of thread-safe sources may
      // be ended from another thread; the compiler cannot know that these sources are.
      nonisolated(unsafe) let subscription = streams.stream.map { inners[$0].stream }
        .switchToLatest().subscribe { _ in }
      runOnThreads(2) { thread in
        if thread == 0 {
          for index in inners.indices { streams.emit(index) }
        } else {
          subscription.unsubscribe()
        }
      }
      #expect(streams.observerCount == 0)
      #expect(inners.map(\.observerCount) == Array(repeating: 0, count: inners.count))
      #expect(inners.map(\.connects) == inners.map(\.disconnects))
    }
  }
}
