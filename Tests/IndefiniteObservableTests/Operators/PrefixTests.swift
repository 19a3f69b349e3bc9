import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct PrefixTests {
  @Test func passesTheFirstValuesThenNothing() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.prefix(2).subscribe { seen.append($0) }
    for value in 1...4 { source.emit(value) }
    #expect(seen == [1, 2])
    subscription.unsubscribe()
  }

  @Test func disconnectsTheSourceBeforePassingOnTheLastValue() {
    let source = CallbackSource<Int>()
    var observersSeenWith: [Int: Int] = [:]
    let subscription = source.stream.prefix(2).subscribe {
      observersSeenWith[$0] = source.observerCount
    }
    source.emit(1)
    #expect(source.disconnects == 0)
    source.emit(2)
    #expect(observersSeenWith == [1: 1, 2: 0])
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func aStreamThatSendsWhileConnectingIsDisconnectedBeforeSubscribeReturns() {
    let source = SynchronousSource([1, 2, 3, 4])
    var seen: [Int] = []
    let subscription = source.stream.prefix(2).subscribe { seen.append($0) }
    #expect(seen == [1, 2])
    #expect(source.disconnects == 1)
    subscription.unsubscribe()
    #expect(source.disconnects == 1)
  }

  @Test func unsubscribingBeforeTheLastValueDisconnects() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.prefix(3).subscribe { seen.append($0) }
    source.emit(1)
    subscription.unsubscribe()
    source.emit(2)
    #expect(seen == [1])
    #expect(source.disconnects == 1)
    #expect(source.observerCount == 0)
  }

  @Test func aValueSentFromTheLastValuesCallbackIsNotPassedOn() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    let subscription = source.stream.prefix(1).subscribe { value in
      seen.append(value)
      if value == 1 { source.emit(2) }
    }
    source.emit(1)
    #expect(seen == [1])
    subscription.unsubscribe()
  }

  @Test(arguments: [0, -1]) func aMaxLengthOfZeroOrLessNeverConnects(maxLength: Int) {
    let source = SynchronousSource([1, 2])
    var seen: [Int] = []
    let subscription = source.stream.prefix(maxLength).subscribe { seen.append($0) }
    subscription.unsubscribe()
    #expect(seen == [])
    #expect(source.connects == 0)
  }

  @Test func eachSubscriptionCountsItsOwnValues() {
    let source = CallbackSource<Int>()
    let firstTwo = source.stream.prefix(2)
    var first: [Int] = []
    var second: [Int] = []
    let early = firstTwo.subscribe { first.append($0) }
    source.emit(1)
    let late = firstTwo.subscribe { second.append($0) }
    source.emit(2)
    source.emit(3)
    source.emit(4)
    #expect(first == [1, 2])
    #expect(second == [2, 3])
    #expect(source.observerCount == 0)
    early.unsubscribe()
    late.unsubscribe()
  }

  /// The last value and `unsubscribe()` race on two threads: the source is disconnected exactly
  /// once, whichever wins.
  @Test func theLastValueAndUnsubscribeOnTwoThreadsDisconnectOnce() {
    for _ in 0..<200 {
      let source = ThreadSafeSource<Int>()
      let received = Counter()
      // `nonisolated(unsafe)`: what the test checks is that a chain of a thread-safe source
      // may be ended from another thread; the compiler cannot know that this source is.
      nonisolated(unsafe) let subscription = source.stream.prefix(1).subscribe { _ in
        received.increment()
      }
      runOnThreads(2) { thread in
        if thread == 0 { source.emit(1) } else { subscription.unsubscribe() }
      }
      #expect(source.disconnects == 1)
      #expect(source.observerCount == 0)
      #expect(received.value <= 1)
    }
  }
}
