import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Behaviour of operator chains as a whole.
@Suite(.checksLiveResources) struct ChainTests {
  @Test func eachSubscriptionConnectsItsOwnUpstream() {
    let source = CallbackSource<Int>()
    let chain = source.stream.map { $0 + 1 }.filter { $0 > 0 }.scan(0, +)
    chain.subscribe { _ in }
    chain.subscribe { _ in }
    #expect(source.connects == 2)
    #expect(source.observerCount == 2)
  }

  @Test func aChainDeliversToAnObserverAsToAClosure() {
    let source = CallbackSource<Int>()
    let chain = source.stream.map { $0 * 2 }.filter { $0 > 2 }
    var seen: [Int] = []
    let subscription = chain.subscribe(observer: ValueObserver { seen.append($0) })
    source.emit(1)
    source.emit(2)
    subscription.unsubscribe()
    source.emit(3)
    #expect(seen == [4])
    #expect(source.observerCount == 0)
  }

  @Test func unsubscribingTheEndDisconnectsEveryStage() {
    let source = CallbackSource<Int>()
    let other = CallbackSource<Int>()
    let subscription = source.stream
      .map { $0 * 2 }
      .removeDuplicates()
      .merge(with: other.stream.compactMap { $0 })
      .combineLatest(other.stream.prepend(0))
      .subscribe { _ in }
    #expect(source.observerCount == 1)
    #expect(other.observerCount == 2)
    subscription.unsubscribe()
    #expect(source.observerCount == 0)
    #expect(other.observerCount == 0)
  }

  @Test func unsubscribingFromInsideACallbackIsSafeAndStopsDelivery() {
    let source = CallbackSource<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.stream.map { $0 * 10 }.subscribe { value in
      seen.append(value)
      if value == 20 { subscription?.unsubscribe() }
    }
    source.emit(1)
    source.emit(2)
    source.emit(3)
    #expect(seen == [10, 20])
    #expect(source.observerCount == 0)
  }

  @Test func unsubscribingAnotherSubscriptionFromInsideACallbackIsSafe() {
    let source = CallbackSource<Int>()
    var seen: [String] = []
    var second: Subscription?
    let first = source.stream.subscribe { value in
      seen.append("first \(value)")
      second?.unsubscribe()
    }
    second = source.stream.subscribe { seen.append("second \($0)") }
    source.emit(1)
    source.emit(2)
    first.unsubscribe()
    #expect(seen == ["first 1", "first 2"])
  }

  @Test func subscribingFromInsideACallbackIsSafe() {
    let source = CallbackSource<Int>()
    var seen: [String] = []
    var inner: Subscription?
    let outer = source.stream.subscribe { value in
      seen.append("outer \(value)")
      if inner == nil { inner = source.stream.subscribe { seen.append("inner \($0)") } }
    }
    source.emit(1)
    source.emit(2)
    outer.unsubscribe()
    inner?.unsubscribe()
    #expect(seen == ["outer 1", "outer 2", "inner 2"])
  }
}
