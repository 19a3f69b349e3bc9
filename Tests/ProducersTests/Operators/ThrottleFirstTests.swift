import IndefiniteObservable
import Multicast
import Producers
import TestSupport
import Testing

@MainActor
@Suite struct ThrottleFirstTests {
  /// Sends 1 at 0 ms, 2 at 10 ms, 3 at 20 ms and 4 at 150 ms, as `ThrottleTests` does, into a
  /// stream made by `throttle`, and returns what was delivered at 0, 99, 100, 150, 199 and
  /// 200 ms.
  private func deliveries(
    _ throttle: (ValueObservable<Int>, ManualClock) -> ValueObservable<Int>
  ) async -> [[Int]] {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    var snapshots: [[Int]] = []
    let subscription = throttle(source, clock).subscribe { seen.append($0) }
    source.send(1)
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(10))
    source.send(2)
    await clock.advance(by: .milliseconds(10))
    source.send(3)
    await clock.advance(by: .milliseconds(79))
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(1))
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(50))
    source.send(4)
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(49))
    snapshots.append(seen)
    await clock.advance(by: .milliseconds(1))
    snapshots.append(seen)
    subscription.unsubscribe()
    return snapshots
  }

  @Test func passesTheFirstValueOfEachWindowAtOnceAndDropsTheRest() async {
    let snapshots = await deliveries { $0.throttleFirst(for: .milliseconds(100), clock: $1) }
    #expect(snapshots == [[1], [1], [1], [1, 4], [1, 4], [1, 4]])
  }

  /// The three behaviours side by side, on the same values: RxSwift's `latest: false`
  /// (`throttleFirst`), Combine's `latest: false`, and `latest: true`, which both libraries
  /// share.
  @Test func differsFromCombinesFirstWhichDeliversTheWindowsFirstValueAtItsEnd() async {
    let rxFirst = await deliveries { $0.throttleFirst(for: .milliseconds(100), clock: $1) }
    let combineFirst = await deliveries {
      $0.throttle(for: .milliseconds(100), clock: $1, latest: false)
    }
    let latest = await deliveries {
      $0.throttle(for: .milliseconds(100), clock: $1, latest: true)
    }
    #expect(rxFirst.last == [1, 4])
    #expect(combineFirst.last == [1, 2, 4])
    #expect(latest.last == [1, 3, 4])
  }

  @Test func aValueAtTheWindowsEndPassesAndADroppedValueDoesNotMoveTheWindow() async {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttleFirst(for: .milliseconds(100), clock: clock)
      .subscribe { seen.append($0) }
    source.send(1)
    await clock.advance(by: .milliseconds(99))
    source.send(2)
    await clock.advance(by: .milliseconds(1))
    source.send(3)
    await clock.advance(by: .milliseconds(99))
    source.send(4)
    await clock.advance(by: .milliseconds(1))
    source.send(5)
    #expect(seen == [1, 3, 5])
    #expect(clock.pendingCount == 0)
    subscription.unsubscribe()
  }

  @Test func unsubscribingFromInsideADeliveryEndsTheStream() async {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    var subscription: Subscription?
    subscription = source.throttleFirst(for: .milliseconds(100), clock: clock).subscribe {
      seen.append($0)
      subscription?.unsubscribe()
    }
    source.send(1)
    #expect(source.subscriberCount == 0)
    await clock.advance(by: .milliseconds(100))
    source.send(2)
    #expect(seen == [1])
  }

  @Test func aValueSentFromInsideADeliveryIsInsideTheWindow() async {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttleFirst(for: .milliseconds(100), clock: clock).subscribe {
      seen.append($0)
      if $0 == 1 { source.send(2) }
    }
    source.send(1)
    await clock.advance(by: .milliseconds(100))
    source.send(3)
    #expect(seen == [1, 3])
    subscription.unsubscribe()
  }

  @Test func eachSubscriptionHasAWindowOfItsOwn() async {
    let clock = ManualClock()
    let source = Emitter<Int>()
    let throttled = source.throttleFirst(for: .milliseconds(100), clock: clock)
    var first: [Int] = []
    var second: [Int] = []
    let early = throttled.subscribe { first.append($0) }
    source.send(1)
    await clock.advance(by: .milliseconds(50))
    let late = throttled.subscribe { second.append($0) }
    source.send(2)
    await clock.advance(by: .milliseconds(50))
    source.send(3)
    #expect(first == [1, 3])
    #expect(second == [2])
    early.unsubscribe()
    late.unsubscribe()
  }

  @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(-1)])
  func anIntervalOfZeroOrLessPassesEveryValue(interval: Duration) {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttleFirst(for: interval, clock: clock)
      .subscribe { seen.append($0) }
    source.send(1)
    source.send(2)
    source.send(3)
    #expect(seen == [1, 2, 3])
    subscription.unsubscribe()
  }

  @Test func anIntervalBeyondTheMaximumIntervalIsTheMaximumInterval() async {
    let clock = ManualClock()
    let source = Emitter<Int>()
    var seen: [Int] = []
    let subscription = source.throttleFirst(
      for: .seconds(Int64.max) + .seconds(Int64.max), clock: clock
    ).subscribe { seen.append($0) }
    source.send(1)
    await clock.advance(by: Timers.maximumInterval - .nanoseconds(1))
    source.send(2)
    await clock.advance(by: .nanoseconds(1))
    source.send(3)
    #expect(seen == [1, 3])
    subscription.unsubscribe()
  }

  /// It arms no timer and holds no value, so code on no actor may use it, and its values are
  /// delivered on the sending thread.
  @Test nonisolated func worksOnNoActorOnTheSendingThread() {
    let clock = ManualClock()
    let source = ValueObservable<Int> { observer in
      for value in [1, 2, 3] { observer.next(value) }
      return noopDisconnect
    }
    var seen: [Int] = []
    let subscription = source.throttleFirst(for: .seconds(1), clock: clock)
      .subscribe { seen.append($0) }
    #expect(seen == [1])
    subscription.unsubscribe()
  }
}
