import Dispatch
import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// A plain function, on no actor and with no isolation parameter, that returns a future: what
/// the adapter is for.
private func greeting(for name: String, calls: Counter? = nil) -> DeferredFuture<String> {
  DeferredFuture {
    calls?.increment()
    return "Hello, \(name)"
  }
}

@MainActor @Suite(.checksLiveResources) struct DeferredFutureTests {
  @Test func deliversTheAsyncFunctionsValueOnTheSubscribersActor() async {
    var seen: [String] = []
    let subscription = greeting(for: "Ada").subscribe { value in
      MainActor.preconditionIsolated()
      seen.append(value)
    }
    #expect(await eventually { seen == ["Hello, Ada"] })
    await settle()
    #expect(seen == ["Hello, Ada"])
    subscription.unsubscribe()
  }

  @Test func eachSubscriptionRunsTheWorkAfresh() async {
    let calls = Counter()
    let future = greeting(for: "Ada", calls: calls)
    await settle()
    #expect(calls.value == 0)
    var seen: [String] = []
    let a = future.subscribe { seen.append("a: \($0)") }
    let b = future.stream().map { $0.count }.subscribe { seen.append("b: \($0)") }
    #expect(await eventually { seen.count == 2 })
    #expect(calls.value == 2)
    #expect(Set(seen) == ["a: Hello, Ada", "b: 10"])
    a.unsubscribe()
    b.unsubscribe()
  }

  @Test func unsubscribeCancelsTheWorkAndDeliversNothing() async {
    let started = Recorder<Bool>()
    let cancelled = Recorder<Bool>()
    let future = DeferredFuture<Int> {
      started.append(true)
      await withTaskCancellationHandler {
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
      } onCancel: {
        cancelled.append(true)
      }
      return 1
    }
    var seen: [Int] = []
    let subscription = future.subscribe { seen.append($0) }
    #expect(await started.arrival(ofCount: 1))
    subscription.unsubscribe()
    #expect(await cancelled.arrival(ofCount: 1))
    await settle()
    #expect(seen == [])
  }

  @Test func aValueReadyAfterUnsubscribeOnTheActorIsNotDelivered() async {
    let release = DispatchSemaphore(value: 0)
    let finished = Recorder<Bool>()
    let future = DeferredFuture<Int> {
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          release.wait()
          continuation.resume()
        }
      }
      finished.append(true)
      return 1
    }
    var seen: [Int] = []
    let subscription = future.subscribe { seen.append($0) }
    subscription.unsubscribe()
    release.signal()
    #expect(await finished.arrival(ofCount: 1))
    await settle()
    #expect(seen == [])
  }

  @Test func aPromiseCalledSynchronouslyDeliversBeforeSubscribeReturns() {
    let future = DeferredFuture<Int> { promise in promise(42) }
    var seen: [Int] = []
    let subscription = future.subscribe { seen.append($0) }
    #expect(seen == [42])
    subscription.unsubscribe()
  }

  /// The value of work that finishes on another thread while `subscribe` still runs (an `async`
  /// function that returns at once, on a busy machine) hops like any other: whether it is
  /// delivered before `subscribe` returns does not depend on a race. CI saw the race once:
  /// `unsubscribingFromInsideTheDeliveryIsHarmless` was delivered before its subscription existed.
  @Test func aPromiseCalledFromAnotherThreadWhileTheAttemptRunsHops() async {
    let future = DeferredFuture<Int> { promise in
      let called = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        promise(1)
        called.signal()
      }
      called.wait()
    }
    var seen: [Int] = []
    let subscription = future.subscribe { value in
      MainActor.preconditionIsolated()
      seen.append(value)
    }
    #expect(seen == [])
    #expect(await eventually { seen == [1] })
    subscription.unsubscribe()
  }

  @Test func aPromiseCalledLaterFromAnotherThreadDeliversOnTheActorOnce() async {
    let future = DeferredFuture<Int> { promise in
      DispatchQueue.global().async {
        promise(1)
        promise(2)
      }
    }
    var seen: [Int] = []
    let subscription = future.subscribe { value in
      MainActor.preconditionIsolated()
      seen.append(value)
    }
    #expect(await eventually { !seen.isEmpty })
    await settle()
    #expect(seen == [1])
    subscription.unsubscribe()
  }

  @Test func aPromiseCalledTwiceSynchronouslyDeliversItsFirstValue() {
    let future = DeferredFuture<Int> { promise in
      promise(1)
      promise(2)
    }
    var seen: [Int] = []
    let subscription = future.subscribe { seen.append($0) }
    #expect(seen == [1])
    subscription.unsubscribe()
  }

  @Test func aPromiseNeverCalledDeliversNothingAndHoldsNothingAfterUnsubscribe() async {
    weak var released: Witness?
    let future = DeferredFuture<Int> { _ in }
    var subscription: Subscription?
    do {
      let witness = Witness()
      released = witness
      subscription = future.subscribe { _ in _ = witness }
    }
    #expect(released != nil)
    subscription?.unsubscribe()
    #expect(released == nil)
  }

  @Test func unsubscribingFromInsideTheDeliveryIsHarmless() async {
    var seen: [String] = []
    var subscription: Subscription?
    subscription = greeting(for: "Ada").subscribe { value in
      seen.append(value)
      subscription?.unsubscribe()
    }
    #expect(await eventually { seen == ["Hello, Ada"] })
    #expect(subscription?.isUnsubscribed == true)
  }

  @Test func worksAsTheInnerStreamOfFlatMapLatest() async {
    let names = Emitter<String>()
    var seen: [String] = []
    let subscription = names.flatMapLatest { greeting(for: $0).stream() }
      .subscribe { seen.append($0) }
    names.send("Ada")
    #expect(await eventually { seen == ["Hello, Ada"] })
    subscription.unsubscribe()
  }
}
