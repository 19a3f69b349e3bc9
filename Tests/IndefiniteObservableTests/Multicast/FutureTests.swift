import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A promise kept for a test to call later, from any thread.
private final class PromiseBox<Value: Sendable>: Sendable {
  let promise = LockedState<(@Sendable (Value) -> Void)?>(nil)

  func keep(_ promise: @escaping @Sendable (Value) -> Void) {
    self.promise.withLock { $0 = promise }
  }

  func fulfil(_ value: Value) {
    let promise = self.promise.withLock { $0 }
    promise?(value)
  }

  /// Lets the promise go, as an API that has called it does.
  func release() {
    let promise = self.promise.withLock { $0.take() }
    withExtendedLifetime(promise) {}
  }
}

/// An object whose deallocation a `@Sendable` subscriber lets a test watch.
private final class Token: Sendable {}

@MainActor @Suite(.checksLiveResources) struct FutureTests {
  @Test func theAttemptRunsOnceAtOnceWhetherAnyoneSubscribesOrNot() {
    var calls = 0
    let future = Future<Int> { promise in
      calls += 1
      promise(calls)
    }
    #expect(calls == 1)
    var seen: [Int] = []
    for _ in 0..<3 { future.subscribe { seen.append($0) } }
    #expect(calls == 1)
    #expect(seen == [1, 1, 1])
  }

  @Test func aValueThatIsThereIsDeliveredToEachSubscriberBeforeSubscribeReturns() {
    let future = Future<String> { promise in promise("ready") }
    var onActor: [String] = []
    let sendingThread = Recorder<String>()
    var streamed: [Int] = []
    let a = future.subscribe { value in
      MainActor.preconditionIsolated()
      onActor.append(value)
    }
    let b = future.subscribe(on: .sendingThread) { sendingThread.append($0) }
    let c = future.stream().map { $0.count }.subscribe { streamed.append($0) }
    #expect(onActor == ["ready"])
    #expect(sendingThread.values == ["ready"])
    #expect(streamed == [5])
    a.unsubscribe()
    b.unsubscribe()
    c.unsubscribe()
  }

  @Test func earlyAndLateSubscribersReceiveTheOneValueOnce() async {
    let box = PromiseBox<Int>()
    let future = Future<Int> { box.keep($0) }
    var seen: [String] = []
    let early = future.subscribe { seen.append("early \($0)") }
    #expect(seen == [])
    box.fulfil(1)
    box.fulfil(2)
    #expect(await eventually { seen == ["early 1"] })
    let late = future.subscribe { seen.append("late \($0)") }
    #expect(seen == ["early 1", "late 1"])
    await settle()
    #expect(seen == ["early 1", "late 1"])
    early.unsubscribe()
    late.unsubscribe()
  }

  @Test func aPromiseCalledFromAnotherThreadDeliversOnTheSubscribersActor() async {
    let future = Future<Int> { promise in
      DispatchQueue.global().async { promise(7) }
    }
    var seen: [Int] = []
    let subscription = future.subscribe { value in
      MainActor.preconditionIsolated()
      seen.append(value)
    }
    #expect(await eventually { seen == [7] })
    await settle()
    #expect(seen == [7])
    subscription.unsubscribe()
  }

  @Test func aSendingThreadSubscriberRunsInsideThePromise() {
    let box = PromiseBox<Int>()
    let future = Future<Int> { box.keep($0) }
    let events = Recorder<String>()
    let subscription = future.subscribe(on: .sendingThread) { events.append("value \($0)") }
    onAnotherThread {
      box.fulfil(5)
      events.append("promise returned")
    }
    #expect(events.values == ["value 5", "promise returned"])
    subscription.unsubscribe()
  }

  @Test func aQueueSubscriberRunsOnItsQueue() {
    let queue = DispatchQueue(label: "FutureTests")
    let future = Future<Int> { promise in promise(3) }
    let seen = Recorder<Int>()
    let subscription = future.subscribe(on: queue) { value in
      dispatchPrecondition(condition: .onQueue(queue))
      seen.append(value)
    }
    #expect(seen.wait(forCount: 1))
    queue.sync {}
    #expect(seen.values == [3])
    subscription.unsubscribe()
  }

  @Test func unsubscribingBeforeTheValueDeliversNothing() async {
    let box = PromiseBox<Int>()
    let future = Future<Int> { box.keep($0) }
    var seen: [Int] = []
    let sendingThread = Recorder<Int>()
    let a = future.subscribe { seen.append($0) }
    let b = future.subscribe(on: .sendingThread) { sendingThread.append($0) }
    a.unsubscribe()
    b.unsubscribe()
    onAnotherThread { box.fulfil(1) }
    await settle()
    #expect(seen == [])
    #expect(sendingThread.values == [])
    var late: [Int] = []
    future.subscribe { late.append($0) }
    #expect(late == [1])
  }

  @Test func unsubscribingDropsTheValueWaitingOnTheQueue() {
    let queue = DispatchQueue(label: "FutureTests")
    let future = Future<Int> { promise in promise(4) }
    let seen = Recorder<Int>()
    let blocked = DispatchSemaphore(value: 0)
    queue.async { blocked.wait() }
    let subscription = future.subscribe(on: queue) { seen.append($0) }
    subscription.unsubscribe()
    blocked.signal()
    queue.sync {}
    #expect(seen.values == [])
  }

  @Test func unsubscribingFromInsideTheDeliveryEndsTheChain() async {
    let box = PromiseBox<Int>()
    let future = Future<Int> { box.keep($0) }
    let other = Emitter<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = future.stream().merge(with: other).subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    #expect(other.subscriberCount == 1)
    onAnotherThread { box.fulfil(1) }
    #expect(await eventually { seen == [1] })
    other.send(2)
    #expect(seen == [1])
    #expect(other.subscriberCount == 0)
    #expect(subscription?.isUnsubscribed == true)
  }

  @Test func promisesRacingOnManyThreadsDeliverOneValueToEverySubscriberOnce() {
    for _ in 0..<50 {
      let box = PromiseBox<Int>()
      let future = Future<Int> { box.keep($0) }
      let seen = Recorder<Int>()
      runOnThreads(4) { thread in
        if thread < 2 {
          box.fulfil(thread)
        } else {
          for _ in 0..<5 { future.subscribe(on: .sendingThread) { seen.append($0) } }
        }
      }
      #expect(seen.count == 10)
      #expect(Set(seen.values).count == 1)
    }
  }

  @Test func aFutureDroppedBeforeItsPromiseIsCalledStillDelivers() async {
    let box = PromiseBox<Int>()
    let queue = DispatchQueue(label: "FutureTests")
    var future: Future<Int>? = Future { box.keep($0) }
    var seen: [Int] = []
    let queued = Recorder<Int>()
    future?.subscribe { seen.append($0) }
    future?.subscribe(on: queue) { queued.append($0) }
    future = nil
    DispatchQueue.global().async {
      box.fulfil(3)
      box.release()
    }
    #expect(await eventually { seen == [3] })
    #expect(await queued.arrival(ofCount: 1))
    #expect(queued.values == [3])
  }

  @Test func aSubscriberIsReleasedOnceItHasItsValue() async {
    let box = PromiseBox<Int>()
    let future = Future<Int> { box.keep($0) }
    weak var onActor: Witness?
    weak var onSendingThread: Token?
    do {
      let witness = Witness()
      let token = Token()
      onActor = witness
      onSendingThread = token
      future.subscribe { witness.received.append($0) }
      future.subscribe(on: .sendingThread) { _ in withExtendedLifetime(token) {} }
    }
    #expect(onActor != nil && onSendingThread != nil)
    onAnotherThread { box.fulfil(1) }
    #expect(onSendingThread == nil)
    #expect(await eventually { onActor == nil })
  }

  @Test func aPromiseNeverCalledHoldsNothingAfterUnsubscribe() {
    let future = Future<Int> { _ in }
    weak var released: Witness?
    var subscription: SendableSubscription?
    do {
      let witness = Witness()
      released = witness
      subscription = future.subscribe { witness.received.append($0) }
    }
    #expect(released != nil)
    subscription?.unsubscribe()
    #expect(released == nil)
  }
}
