import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct FlatMapTests {
  @Test func mergesTheValuesOfEveryInnerStream() {
    let rooms = CallbackSource<String>()
    let messages = ["lobby": CallbackSource<String>(), "dev": CallbackSource<String>()]
    var heard: [String] = []
    let subscription = rooms.stream.flatMap { room in messages[room]!.stream.map { "\(room) \($0)" }
    }
    .subscribe { heard.append($0) }
    rooms.emit("lobby")
    messages["lobby"]!.emit("hi")
    rooms.emit("dev")
    messages["dev"]!.emit("green")
    messages["lobby"]!.emit("bye")
    #expect(heard == ["lobby hi", "dev green", "lobby bye"])
    subscription.unsubscribe()
    #expect(rooms.observerCount == 0)
    #expect(messages.values.map(\.observerCount) == [0, 0])
  }

  @Test func theSameStreamTwiceIsConnectedTwice() {
    let values = CallbackSource<Int>()
    let inner = CallbackSource<String>()
    var heard: [String] = []
    let subscription = values.stream.flatMap { _ in inner.stream }.subscribe { heard.append($0) }
    values.emit(1)
    values.emit(2)
    inner.emit("x")
    #expect(heard == ["x", "x"])
    #expect(inner.connects == 2)
    subscription.unsubscribe()
    #expect(inner.disconnects == 2)
  }

  @Test func maxPublishersTakesThatManyValuesThenDisconnectsTheOuterStream() {
    let values = CallbackSource<Int>()
    let inners = (0..<3).map { _ in CallbackSource<Int>() }
    var heard: [Int] = []
    let subscription = values.stream.flatMap(maxPublishers: 2) { inners[$0].stream }
      .subscribe { heard.append($0) }
    values.emit(0)
    #expect(values.observerCount == 1)
    values.emit(1)
    #expect(values.observerCount == 0)
    values.emit(2)
    for inner in inners { inner.emit(7) }
    #expect(heard == [7, 7])
    #expect(inners.map(\.connects) == [1, 1, 0])
    subscription.unsubscribe()
    #expect(inners.map(\.observerCount) == [0, 0, 0])
    #expect(values.disconnects == 1)
  }

  @Test(arguments: [0, -1]) func maxPublishersOfZeroOrLessConnectsNothing(max: Int) {
    let values = SynchronousSource([1, 2])
    var calls = 0
    let subscription = values.stream.flatMap(maxPublishers: max) { value -> ValueObservable<Int> in
      calls += 1
      return Just(value)
    }.subscribe { _ in }
    subscription.unsubscribe()
    #expect(values.connects == 0 && calls == 0)
  }

  @Test func innerStreamsSendingWhileConnectingAreMerged() {
    let values = SynchronousSource([1, 2])
    var heard: [Int] = []
    let subscription = values.stream.flatMap { SynchronousSource([$0, $0 * 10]).stream }
      .subscribe { heard.append($0) }
    #expect(heard == [1, 10, 2, 20])
    subscription.unsubscribe()
  }

  /// As Combine's: the inner streams are disconnected first, in the order they connected, while
  /// the outer stream is still connected, then the outer one.
  @Test func unsubscribeDisconnectsTheInnerStreamsBeforeTheOuterOne() {
    let values = CallbackSource<Int>()
    var order: [String] = []
    let outer = ValueObservable<Int> { observer in
      let upstream = values.stream.subscribe(observer.next)
      return {
        order.append("outer")
        upstream.unsubscribe()
      }
    }
    let subscription = outer.flatMap { value in
      ValueObservable<Int> { _ in
        { order.append("inner \(value), outer has \(values.observerCount)") }
      }
    }.subscribe { _ in }
    values.emit(1)
    values.emit(2)
    subscription.unsubscribe()
    #expect(order == ["inner 1, outer has 1", "inner 2, outer has 1", "outer"])
  }

  @Test func unsubscribingFromInsideADeliveryEndsEveryStream() {
    let values = CallbackSource<Int>()
    let inners = (0..<2).map { _ in CallbackSource<Int>() }
    var heard: [Int] = []
    var subscription: Subscription?
    subscription = values.stream.flatMap { inners[$0].stream }.subscribe { value in
      heard.append(value)
      subscription?.unsubscribe()
    }
    values.emit(0)
    values.emit(1)
    inners[1].emit(5)
    inners[0].emit(6)
    values.emit(0)
    #expect(heard == [5])
    #expect(values.observerCount == 0)
    #expect(inners.map(\.observerCount) == [0, 0])
    #expect(inners.map(\.connects) == [1, 1])
  }

  @Test func eachSubscriptionConnectsItsOwnStreams() {
    let values = CallbackSource<Int>()
    let inner = CallbackSource<Int>()
    let merged = values.stream.flatMap { _ in inner.stream }
    let a = merged.subscribe { _ in }
    let b = merged.subscribe { _ in }
    values.emit(1)
    #expect(inner.observerCount == 2)
    a.unsubscribe()
    #expect(inner.observerCount == 1)
    b.unsubscribe()
  }

  /// One thread delivers new streams while another unsubscribes: every inner stream that
  /// connected is disconnected, never left connected.
  @Test func noInnerStreamStaysConnectedAfterUnsubscribeOnAnotherThread() {
    for _ in 0..<100 {
      let values = ThreadSafeSource<Int>()
      let inners = (0..<20).map { _ in ThreadSafeSource<Int>() }
      // `nonisolated(unsafe)`: what the test checks is that a chain of thread-safe sources may
      // be ended from another thread; the compiler cannot know that these sources are.
      nonisolated(unsafe) let subscription = values.stream.flatMap { inners[$0].stream }
        .subscribe { _ in }
      runOnThreads(2) { thread in
        if thread == 0 {
          for index in inners.indices { values.emit(index) }
        } else {
          subscription.unsubscribe()
        }
      }
      #expect(values.observerCount == 0)
      #expect(inners.map(\.observerCount) == Array(repeating: 0, count: inners.count))
      #expect(inners.map(\.connects) == inners.map(\.disconnects))
    }
  }
}
