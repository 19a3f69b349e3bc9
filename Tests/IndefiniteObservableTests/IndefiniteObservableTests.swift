import IndefiniteObservable
import Multicast
import TestSupport
import Testing

@Suite(.checksLiveResources) struct IndefiniteObservableTests {
  @Test func connectRunsOnlyWhenSubscribed() {
    var connects = 0
    let observable = ValueObservable<Int> { _ in
      connects += 1
      return noopDisconnect
    }
    #expect(connects == 0)
    observable.subscribe { _ in }
    #expect(connects == 1)
  }

  @Test func connectRunsOncePerSubscription() {
    let source = SynchronousSource([1, 2])
    var first: [Int] = []
    var second: [Int] = []
    source.stream.subscribe { first.append($0) }
    source.stream.subscribe { second.append($0) }
    #expect(source.connects == 2)
    #expect(first == [1, 2])
    #expect(second == [1, 2])
  }

  @Test func synchronousValuesArriveBeforeSubscribeReturns() {
    let observable = ValueObservable<String> { observer in
      observer.next("a")
      observer.next("b")
      return noopDisconnect
    }
    var seen: [String] = []
    observable.subscribe { seen.append($0) }
    #expect(seen == ["a", "b"])
  }

  @Test func observerTypeIsInferredFromConnect() {
    let observable = IndefiniteObservable { (observer: ValueObserver<Int>) in
      observer.next(7)
      return noopDisconnect
    }
    var seen: [Int] = []
    observable.subscribe(observer: ValueObserver { seen.append($0) })
    #expect(seen == [7])
  }

  @Test func customObserverCarriesSeveralChannels() {
    let observable = IndefiniteObservable<MotionObserver<Double>> { observer in
      observer.state(.active)
      observer.next(0.5)
      observer.next(1)
      observer.state(.atRest)
      return noopDisconnect
    }
    var events: [String] = []
    observable.subscribe(
      observer: MotionObserver(
        next: { events.append("next \($0)") },
        state: { events.append("state \($0)") }))
    #expect(events == ["state active", "next 0.5", "next 1.0", "state atRest"])
  }

  @Test func subclassWithItsOwnSubscribeCallsSuper() {
    let observable = MotionObservable<Int> { observer in
      observer.next(1)
      observer.state(.atRest)
      return noopDisconnect
    }
    var values: [Int] = []
    var states: [MotionState] = []
    observable.subscribe(next: { values.append($0) }, state: { states.append($0) })
    #expect(values == [1])
    #expect(states == [.atRest])
  }

  @Test func disconnectRunsWhenUnsubscribed() {
    let source = CallbackSource<Int>()
    let subscription = source.stream.subscribe { _ in }
    #expect(source.observerCount == 1)
    subscription.unsubscribe()
    #expect(source.observerCount == 0)
    #expect(source.disconnects == 1)
  }
}

enum MotionState { case atRest, active }

final class MotionObserver<T>: Observer {
  init(next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void) {
    self.next = next
    self.state = state
  }
  let next: (T) -> Void
  let state: (MotionState) -> Void
}

final class MotionObservable<T>: IndefiniteObservable<MotionObserver<T>> {
  @discardableResult
  func subscribe(next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void)
    -> Subscription
  {
    super.subscribe(observer: MotionObserver(next: next, state: state))
  }
}
